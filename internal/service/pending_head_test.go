package service

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestPendingBlockMovesNoHead: a key that asks for the pending block once a
// second (its number is the head's plus one, and it is not mined) makes no
// other key's call wait or fail, on the embedded default and on two
// `nodegate node` members over HTTP. Before heads were learned only from
// mined blocks, the pending block's number became a member's head, the
// member's next polls lowered it again, and the pool's mark stayed one
// block above every member for lag_memory: every call at the head waited
// head_wait and answered 503.
func TestPendingBlockMovesNoHead(t *testing.T) {
	const rounds = 6 // seconds: the member's own polls (head_interval 1s) contradict a learned head within two
	asker, other := strings.Repeat("a1", 16), strings.Repeat("b2", 16)
	embedded := func(t *testing.T) config.Config {
		return config.Ephemeral(t.TempDir())
	}
	nodes := func(t *testing.T) config.Config {
		a := startNode(t, "", "127.0.0.1:0")
		b := startNode(t, "", "127.0.0.1:0")
		cfg := config.Ephemeral(t.TempDir())
		cfg.Networks = []config.Network{{
			Name: "mainnet", Family: "evm",
			Upstreams: []config.Upstream{{Name: "a", URL: a.url()}, {Name: "b", URL: b.url()}},
		}}
		return cfg
	}
	for name, setup := range map[string]func(*testing.T) config.Config{"embedded default": embedded, "nodegate node members": nodes} {
		t.Run(name, func(t *testing.T) {
			cfg := setup(t)
			cfg.APIKeys = []string{asker, other}
			cfg.Plans[config.PlanTeam] = config.Plan{} // the test's own load: no rate limits
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			svc, err := Start(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close(context.Background())

			var (
				calls, failed atomic.Int64
				mu            sync.Mutex
				failures      []string
				stop          = make(chan struct{})
				wg            sync.WaitGroup
			)
			wg.Go(func() {
				tick := time.NewTicker(20 * time.Millisecond) // a steady client, not a flood
				defer tick.Stop()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
					body := testenv.RPCBody("eth_blockNumber", "")
					if i%2 == 1 {
						body = testenv.RPCBody("eth_getBalance", `["0x00000000000000000000000000000000000000aa","latest"]`)
					}
					calls.Add(1)
					status, out, err := testenv.Post(ctx, nil, svc.URL()+"/v3/"+other, body)
					if err != nil || status != 200 || !strings.Contains(string(out), `"result"`) {
						failed.Add(1)
						mu.Lock()
						failures = append(failures, clipped(out))
						mu.Unlock()
					}
				}
			})
			tick := time.NewTicker(time.Second)
			for range rounds {
				status, out, err := testenv.Post(ctx, nil, svc.URL()+"/v3/"+asker, testenv.RPCBody("eth_getBlockByNumber", `["pending",false]`))
				if err != nil || status != 200 || !strings.Contains(string(out), `"number"`) {
					t.Errorf("the pending block: %d %s %v", status, clipped(out), err)
				}
				<-tick.C
			}
			tick.Stop()
			close(stop)
			wg.Wait()
			t.Logf("another key's calls: %d failed of %d", failed.Load(), calls.Load())
			if calls.Load() < 2*rounds {
				t.Fatalf("only %d calls of the other key ran", calls.Load())
			}
			if failed.Load() != 0 {
				t.Errorf("the pending block made %d of another key's %d calls fail; first: %s", failed.Load(), calls.Load(), failures[0])
			}
		})
	}
}
