package pipeline

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
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
	"github.com/nodegate/nodegate/internal/upstream/upstreamtest"
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

// forkingNode is a node on loopback whose head block (10) is of fork
// 0 or 1 as the test sets it, and whose receipts wait for release and
// name the head block as it was when the call came.
type forkingNode struct {
	fork     atomic.Int32
	release  chan struct{}
	receipts atomic.Int64
}

func (f *forkingNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, err := upstreamtest.ReadRequest(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	head := upstreamtest.BlockHash(10, byte(f.fork.Load()))
	switch req.Method {
	case "eth_getBlockByNumber":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"number":"0xa","hash":"%s","parentHash":"%s"}}`,
			req.ID, head, upstreamtest.BlockHash(9, 0))
	case "eth_getTransactionReceipt":
		f.receipts.Add(1)
		<-f.release
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"blockNumber":"0xa","blockHash":"%s"}}`, req.ID, head)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":null}`, req.ID)
	}
}

// TestCoalescingStopsAtAReorg: a read made after the chain moved to an
// equal fork (same head number, another block) is not shared with the
// same read in flight since before the move, whose answer names the block
// the chain left; it is asked of the node itself.
func TestCoalescingStopsAtAReorg(t *testing.T) {
	node := &forkingNode{release: make(chan struct{})}
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	pool := upstream.NewPool("test", upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval: 10 * time.Millisecond, Hedge: upstream.HedgeConfig{Off: true}}, upstreamtest.HTTPMembers(t, srv.URL)...)
	pool.Start(context.Background())
	t.Cleanup(pool.Close)
	testenv.WaitFor(t, 10*time.Second, "the pool at block 10 of fork 0", func() bool {
		h, ok := pool.Canonical(10)
		return ok && h.Hex() == upstreamtest.BlockHash(10, 0)
	})
	n := &Network{Name: "test", Methods: methods.NewTable(methods.FamilyEVM), Pool: pool}
	p := Build(Options{})
	receipt := func(id string) <-chan *jsonrpc.Response {
		out := make(chan *jsonrpc.Response, 1)
		go func() {
			out <- p.Serve(context.Background(), &Call{Req: jsonrpc.Request{ID: []byte(id), Method: "eth_getTransactionReceipt",
				Params: []byte(`["0x00000000000000000000000000000000000000000000000000000000000000aa"]`)}, Network: n})
		}()
		return out
	}
	before := receipt("1")
	testenv.WaitFor(t, 10*time.Second, "the first receipt call at the node", func() bool { return node.receipts.Load() == 1 })
	node.fork.Store(1) // the chain moves to an equal fork: block 10 is another block
	testenv.WaitFor(t, 10*time.Second, "the pool on fork 1", func() bool {
		h, ok := pool.Canonical(10)
		return ok && h.Hex() == upstreamtest.BlockHash(10, 1)
	})
	after := receipt("2")
	testenv.WaitFor(t, 10*time.Second, "the second call at the node, or sharing the first", func() bool {
		return node.receipts.Load() == 2 || n.route().coalesce.Inside() == 2
	})
	shared := node.receipts.Load() != 2
	close(node.release)
	if shared {
		t.Fatalf("the receipt asked after the reorg shared the call made before it (%d calls at the node): %s", node.receipts.Load(), (<-after).Result)
	}
	// Both answer block 10 of fork 1: the first call's answer, fork 0's,
	// came after the reorg and is asked again (upstream/canonlate.go).
	for name, got := range map[string]*jsonrpc.Response{"before": <-before, "after": <-after} {
		if !strings.Contains(string(got.Result), upstreamtest.BlockHash(10, 1)[2:]) {
			t.Errorf("the receipt asked %s the reorg: %s, want it in block 10 of fork 1", name, got.Result)
		}
	}
}
