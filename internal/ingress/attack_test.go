package ingress_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service"
)

// loopingCall is an eth_call whose code (creation code, no "to") jumps to
// itself until its gas or its time runs out: JUMPDEST PUSH1 0 JUMP.
const loopingCall = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"0x5b600056"},"latest"]}`

// createKey makes a key on plan and waits until the gateway knows it.
func createKey(t *testing.T, s *service.Service, plan string) string {
	t.Helper()
	c, err := s.KeyManager.Create(context.Background(), keys.CreateParams{Name: plan + " key", Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keys.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c.Key
}

type attackAnswer struct {
	Status int
	Error  *struct {
		Code    int
		Message string
	}
}

func postRPC(url, body string) (attackAnswer, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return attackAnswer{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return attackAnswer{}, err
	}
	a := attackAnswer{Status: resp.StatusCode}
	if err := json.Unmarshal(out, &a); err != nil {
		return a, fmt.Errorf("%s: %w", out, err)
	}
	return a, nil
}

// p99 of a victim's latencies: n calls one after the other, alternating a
// cheap eth_call (executed by the node) and eth_blockNumber.
func victimP99(t *testing.T, url string, n int) time.Duration {
	t.Helper()
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa","data":"0x"},"latest"]}`,
		`{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}`,
	}
	took := make([]time.Duration, 0, n)
	for i := range n {
		start := time.Now()
		a, err := postRPC(url, bodies[i%2])
		took = append(took, time.Since(start))
		if err != nil || a.Status != http.StatusOK || a.Error != nil {
			t.Fatalf("victim call %d: %+v %v", i, a, err)
		}
	}
	slices.Sort(took)
	return took[len(took)*99/100]
}

// TestExecutionAttack is issue 11's CPU attack: a core key, within its
// rate, keeps sending eth_calls that loop until they are stopped. Its
// plan's max_in_flight refuses what is over it with 429 -32005, its
// call_timeout stops the EVM, and it gets only its share of the CPUs, so
// another key's p99 stays within 3x its idle p99, both measured here.
func TestExecutionAttack(t *testing.T) {
	s := startGateway(t, nil)
	attacker := s.URL() + "/v3/" + createKey(t, s, keys.PlanCore)
	victim := s.URL() + "/v3/" + s.GeneratedKey
	const samples = 400
	victimP99(t, victim, 50) // warm up
	idle := victimP99(t, victim, samples)

	var (
		stop                        atomic.Bool
		aborted, inFlight, rate, ok atomic.Int64
		other                       sync.Map
		wg                          sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for !stop.Load() {
				a, err := postRPC(attacker, loopingCall)
				switch {
				case err != nil:
					other.Store(err.Error(), true)
				case a.Error == nil:
					ok.Add(1)
				case a.Status == http.StatusTooManyRequests && strings.Contains(a.Error.Message, "in flight"):
					inFlight.Add(1)
					time.Sleep(50 * time.Millisecond)
				case a.Status == http.StatusTooManyRequests:
					rate.Add(1)
					time.Sleep(200 * time.Millisecond) // the attacker keeps to its rate
				case a.Error.Code == -32000 && strings.HasPrefix(a.Error.Message, "execution aborted (timeout = 1s)"):
					aborted.Add(1)
				default:
					other.Store(fmt.Sprintf("%d %d %s", a.Status, a.Error.Code, a.Error.Message), true)
				}
			}
		})
	}
	// The attack is on once calls are being stopped at the plan's limit.
	deadline := time.Now().Add(2 * time.Minute)
	for aborted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	attacked := victimP99(t, victim, samples)
	stop.Store(true)
	wg.Wait()
	other.Range(func(k, _ any) bool { t.Errorf("attacker got %v", k); return true })
	t.Logf("victim p99: idle %v, attacked %v (%.1fx); attacker: %d aborted at call_timeout, %d refused in flight, %d refused over rate, %d finished",
		idle, attacked, float64(attacked)/float64(idle), aborted.Load(), inFlight.Load(), rate.Load(), ok.Load())
	if aborted.Load() == 0 || inFlight.Load() == 0 {
		t.Fatalf("the attack was not on: %d calls aborted, %d refused in flight", aborted.Load(), inFlight.Load())
	}
	if attacked > 3*idle {
		t.Fatalf("victim p99 %v under attack, over 3x its idle %v", attacked, idle)
	}
}
