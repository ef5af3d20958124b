package pipeline

import (
	"context"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// gatedNetwork's upstream holds every call until release is closed and
// counts the calls per method+params it got.
func gatedNetwork(release <-chan struct{}, hits *sync.Map, total *atomic.Int64) *Network {
	return &Network{Name: "test", Methods: methods.NewTable(methods.FamilyEVM),
		Upstream: upstream.Func{ID: "gated", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
			total.Add(1)
			v, _ := hits.LoadOrStore(string(body), new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
			<-release
			return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x2a"}`), nil
		}}}
}

// TestCoalescing: identical reads in flight together make one upstream
// call and each gets the answer; different params, and writes, are not
// shared.
func TestCoalescing(t *testing.T) {
	write := wellFormedRawTx(t) // every write sends the same bytes
	cases := []struct {
		name      string
		calls     func(i int) (method, params string)
		wantTotal int64
	}{
		{"identical reads", func(int) (string, string) {
			return "eth_getBalance", `["0x00000000000000000000000000000000000000aa","latest"]`
		}, 1},
		{"two distinct reads", func(i int) (string, string) {
			return "eth_getBalance", fmt.Sprintf(`["0x00000000000000000000000000000000000000a%d","latest"]`, i%2)
		}, 2},
		{"writes", func(int) (string, string) { return "eth_sendRawTransaction", `["` + write + `"]` }, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			var hits sync.Map
			var total atomic.Int64
			n := gatedNetwork(release, &hits, &total)
			p := Build(Options{})
			const callers = 20
			answers := make([]*jsonrpc.Response, callers)
			var wg sync.WaitGroup
			for i := range callers {
				method, params := tc.calls(i)
				wg.Go(func() {
					answers[i] = p.Serve(context.Background(), &Call{Req: jsonrpc.Request{ID: []byte(fmt.Sprint(i)), Method: method, Params: []byte(params)}, Network: n})
				})
			}
			// Wait until every caller is either sharing a call or at the node.
			testenv.WaitFor(t, 30*time.Second, "every caller sharing a call or at the node", func() bool {
				return total.Load() >= callers || n.route().coalesce.Inside() >= callers
			})
			close(release)
			wg.Wait()
			if got := total.Load(); got != tc.wantTotal {
				t.Fatalf("upstream calls = %d, want %d", got, tc.wantTotal)
			}
			for i, a := range answers {
				if tc.name != "writes" && (a.Err != nil || string(a.Result) != `"0x2a"`) {
					t.Fatalf("answer %d: %s %v", i, a.Result, a.Err)
				}
			}
		})
	}
}

// wellFormedRawTx is a signed transaction (unprotected: any chain's) that
// passes the pool's check before sending (a write whose bytes are not a
// transaction never reaches a node).
func wellFormedRawTx(t *testing.T) string {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(k, types.HomesteadSigner{}, &types.LegacyTx{Gas: 21000, GasPrice: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return hexutil.Encode(raw)
}
