package ingress_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// loopingCall is an eth_call whose code (creation code, no "to") jumps to
// itself until its gas or its time runs out: JUMPDEST PUSH1 0 JUMP.
const loopingCall = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"0x5b600056"},"latest"]}`

// longLoops raises the gas cap a hundredfold, so that the looping call
// (12 gas a turn) has gas for about 25 s on this machine (at 100 it ran
// out after about 2 s, as soon as a 2 s call_timeout): what stops it is
// then the plan's call_timeout, however fast the machine.
func longLoops(c *config.Config) { c.Limits.GasCapFactor = 1000 }

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
	status, out, err := testenv.Post(context.Background(), client, url, body)
	if err != nil {
		return attackAnswer{}, err
	}
	a := attackAnswer{Status: status}
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
	end := time.Now().Add(90 * time.Second) // a starved victim must not hold the suite for long
	for i := 0; i < n && (i < 50 || time.Until(end) > 0); i++ {
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
// plan's max_in_flight and the execution slots' queue refuse what is over
// them with -32005, its
// call_timeout stops the EVM, and it gets only its share of the CPUs, so
// another key's calls never wait for the attacker's: its p99 stays under
// the attacker's call_timeout (and within 3x idle on a quiet machine).
func TestExecutionAttack(t *testing.T) { executionAttack(t, longLoops, loopingCall) }

// TestExecutionAttackAllMethods is issue 19's: the same attack with
// eth_createAccessList (whose runs go-ethereum does not stop at a
// deadline: each runs until its gas, the node's cap, is spent) and
// eth_simulateV1 (made to run 300M gas), which escaped call_timeout and
// the CPU share when only eth_call and eth_estimateGas were bounded.
func TestExecutionAttackAllMethods(t *testing.T) {
	executionAttack(t, nil,
		`{"jsonrpc":"2.0","id":1,"method":"eth_createAccessList","params":[{"data":"0x5b600056"},"latest"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"blockOverrides":{"gasLimit":"0x11e1a300"},"calls":[{"data":"0x5b600056","gas":"0x11e1a300"}]}]},"latest"]}`)
}

// executionAttack: a core key keeps sending the attack bodies, in turn,
// from 8 clients, while another key's p99 is measured.
func executionAttack(t *testing.T, edit func(*config.Config), attack ...string) {
	s := startGateway(t, edit)
	attacker := s.URL() + "/v3/" + createKey(t, s, config.PlanCore)
	victim := s.URL() + "/v3/" + s.GeneratedKey
	const samples = 400
	victimP99(t, victim, 50) // warm up
	idle := victimP99(t, victim, samples)

	var (
		stop                        atomic.Bool
		aborted, inFlight, rate, ok atomic.Int64
		queueRefused                atomic.Int64
		other                       sync.Map
		wg                          sync.WaitGroup
	)
	var sent, waited atomic.Int64
	for range 8 {
		wg.Go(func() {
			for !stop.Load() {
				a, err := postRPC(attacker, attack[int(sent.Add(1))%len(attack)])
				switch {
				case err != nil && strings.Contains(err.Error(), "Client.Timeout"):
					waited.Add(1) // queued behind the key's turn, held while the node runs on (createAccessList)
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
				case a.Error.Code == -32005 && (strings.HasPrefix(a.Error.Message, "too many calls that run code for this account") ||
					strings.Contains(a.Error.Message, "it did not run")):
					queueRefused.Add(1) // refused by the execution slots' queue, at once or at its deadline
				default:
					other.Store(fmt.Sprintf("%d %d %s", a.Status, a.Error.Code, a.Error.Message), true)
				}
			}
		})
	}
	// The attack is on once calls are being stopped at the plan's limit.
	testenv.WaitFor(t, 2*time.Minute, "the attack's first call stopped at the plan's limit", func() bool { return aborted.Load() > 0 })
	attacked := victimP99(t, victim, samples)
	stop.Store(true)
	wg.Wait()
	// Idle again: on a machine busy with other work, the larger of the two
	// idle figures is the fairer yardstick.
	idleAfter := victimP99(t, victim, samples)
	t.Logf("victim p99 idle before the attack %v, after it %v", idle, idleAfter)
	idle = max(idle, idleAfter)
	other.Range(func(k, _ any) bool { t.Errorf("attacker got %v", k); return true })
	t.Logf("victim p99: idle %v, attacked %v (%.1fx); attacker: %d aborted at call_timeout, %d refused in flight, %d refused over rate, %d refused by the execution queue, %d finished, %d gave up waiting for the key's turn",
		idle, attacked, float64(attacked)/float64(idle), aborted.Load(), inFlight.Load(), rate.Load(), queueRefused.Load(), ok.Load(), waited.Load())
	if aborted.Load() == 0 || inFlight.Load()+queueRefused.Load() == 0 {
		t.Fatalf("the attack was not on: %d calls aborted, %d refused in flight or by the execution queue", aborted.Load(), inFlight.Load()+queueRefused.Load())
	}
	// The bound held here is the one the victim feels: it never waits as
	// long as an attacker's call may run (the core plan's call_timeout,
	// 1 s); without the execution bounds its p99 was 15 s. The ratio to
	// idle (3x on a quiet machine, the figure) is logged, not
	// asserted: on a busy machine it measures the other work.
	if attacked > time.Second {
		t.Fatalf("victim p99 %v under attack (idle %v): it waited for the attacker's calls", attacked, idle)
	}
}

// TestInFlightAcrossTransports: a key's calls in flight are counted over
// HTTP and WebSocket together. With max_in_flight 1, a looping eth_call on
// the key's WebSocket makes its HTTP requests answer 429 -32005 until the
// call is stopped at the plan's call_timeout; then HTTP is served again.
func TestInFlightAcrossTransports(t *testing.T) {
	s := startGateway(t, func(c *config.Config) {
		longLoops(c)
		c.Plans["tiny"] = config.Plan{MaxInFlight: 1, CallTimeout: 2 * time.Second}
	})
	key := createKey(t, s, "tiny")
	ws, _, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, []byte(loopingCall)); err != nil {
		t.Fatal(err)
	}
	wsAnswer := testenv.NextMessage(ws, time.Minute)
	url := s.URL() + "/v3/" + key
	blockNumber := `{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}`
	refused := false
	var answer string
	for !refused {
		select {
		case answer = <-wsAnswer:
			t.Fatalf("the WebSocket call ended (%s) before HTTP saw it in flight", answer)
		default:
		}
		a, err := postRPC(url, blockNumber)
		if err != nil {
			t.Fatal(err)
		}
		refused = a.Status == http.StatusTooManyRequests && a.Error != nil && a.Error.Code == -32005 &&
			a.Error.Message == "too many calls in flight for this API key (limit 1): wait for answers before sending more"
		time.Sleep(5 * time.Millisecond)
	}
	answer = <-wsAnswer
	if !strings.Contains(answer, `"code":-32000,"message":"execution aborted (timeout = 2s)"`) {
		t.Fatalf("the looping call answered %s", answer)
	}
	if a, err := postRPC(url, blockNumber); err != nil || a.Status != http.StatusOK || a.Error != nil {
		t.Fatalf("after the call ended, HTTP answered %+v %v", a, err)
	}
}
