package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/verify"
	"github.com/nodegate/nodegate/jsonrpc"
)

// liar is a proxy in front of a real node that corrupts every every-th
// answer to a call naming a block or transaction (never a head poll's),
// each time in the next of its ways.
type liar struct {
	node  *evmnode.Node
	every int64
	n     atomic.Int64
	lies  atomic.Int64
	mu    sync.Mutex
	last  map[string]json.RawMessage // the last honest result of each method (a different answer than asked)
}

// corruptions are the liar's ways, by the method they apply to.
var corruptions = map[string][]string{
	"eth_getBlockByNumber":      {"hash", "parentHash", "transactionsRoot", "txValue", "another"},
	"eth_getBlockByHash":        {"hash", "parentHash", "transactionsRoot", "txValue", "another"},
	"eth_getTransactionByHash":  {"value", "nonce", "from", "another"},
	"eth_getTransactionReceipt": {"logBlockHash", "another"},
	"eth_getLogs":               {"logBlockHash"},
}

func (l *liar) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	out, err := l.node.Do(r.Context(), body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) == nil && !bytes.Contains(req.Params, []byte(`"latest"`)) && !bytes.Contains(req.Params, []byte(`"finalized"`)) {
		out = l.maybeLie(req.Method, out)
	}
	_, _ = w.Write(out)
}

func (l *liar) maybeLie(method string, out []byte) []byte {
	ways := corruptions[method]
	id, resp, err := jsonrpc.DecodeResponse(out)
	if len(ways) == 0 || err != nil || resp.Err != nil || string(resp.Result) == "null" || string(resp.Result) == "[]" {
		return out
	}
	l.mu.Lock()
	prev := l.last[method]
	l.last[method] = resp.Result
	l.mu.Unlock()
	k := l.n.Add(1)
	if k%l.every != 0 {
		return out
	}
	way := ways[(k/l.every)%int64(len(ways))]
	bad := corrupt(resp.Result, way, prev)
	if bad == nil {
		return out
	}
	l.lies.Add(1)
	return jsonrpc.AppendResponse(nil, id, &jsonrpc.Response{Result: bad})
}

const otherWord = `"0x00000000000000000000000000000000000000000000000000000000000000aa"`

// corrupt is result corrupted in one way (nil: this answer has nothing
// to corrupt that way).
func corrupt(result json.RawMessage, way string, prev json.RawMessage) json.RawMessage {
	if way == "another" {
		if prev == nil || bytes.Equal(prev, result) {
			return nil
		}
		return prev
	}
	var v any
	if json.Unmarshal(result, &v) != nil {
		return nil
	}
	set := func(m any, key, value string) bool {
		obj, ok := m.(map[string]any)
		if !ok {
			return false
		}
		obj[key] = json.RawMessage(value)
		return true
	}
	first := func(m any, key string) any {
		obj, _ := m.(map[string]any)
		list, _ := obj[key].([]any)
		if len(list) == 0 {
			return nil
		}
		return list[0]
	}
	ok := false
	switch way {
	case "hash", "parentHash", "transactionsRoot":
		ok = set(v, way, otherWord)
	case "txValue":
		ok = set(first(v, "transactions"), "value", `"0x1234"`)
	case "value":
		ok = set(v, "value", `"0x1234"`)
	case "nonce":
		ok = set(v, "nonce", `"0x77"`)
	case "from":
		ok = set(v, "from", `"0x000000000000000000000000000000000000beef"`)
	case "logBlockHash":
		if list, isList := v.([]any); isList && len(list) > 0 {
			ok = set(list[0], "blockHash", otherWord)
		} else {
			ok = set(first(v, "logs"), "blockHash", otherWord)
		}
	}
	if !ok {
		return nil
	}
	out, _ := json.Marshal(v)
	return out
}

// mined sends txs to n and waits for each to be mined, returning their
// receipts' blocks.
func mined(t *testing.T, n *evmnode.Node, txs []*types.Transaction) {
	t.Helper()
	for _, tx := range txs {
		raw, _ := tx.MarshalBinary()
		if _, err := n.Do(context.Background(), []byte(testenv.RPCBody("eth_sendRawTransaction", fmt.Sprintf(`["%s"]`, hexutil.Encode(raw))))); err != nil {
			t.Fatal(err)
		}
	}
	last := txs[len(txs)-1].Hash()
	testenv.WaitFor(t, 30*time.Second, "the transactions mined", func() bool {
		out, _ := n.Do(context.Background(), []byte(testenv.RPCBody("eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, last))))
		return !bytes.Contains(out, []byte(`"result":null`))
	})
}

// TestLiarIsCaught: one of two members lies on one answer in five about
// blocks, transactions, receipts and logs, in every way the checks see
// (a block's hash, parent hash, transactions root, a transaction's
// field, its sender, a log's block, another block or transaction than
// asked). No lie reaches the caller: each is caught, its member
// quarantined at once and the call answered by the honest member.
func TestLiarIsCaught(t *testing.T) {
	node := evmnodetest.Start(t, evmnode.Config{})
	acc := node.Accounts()[0]
	chainID := new(big.Int).SetUint64(node.ChainID())
	signer := types.LatestSignerForChainID(chainID)
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	var txs []*types.Transaction
	for i := range 6 {
		var data []byte
		var dest *common.Address = &to
		if i%2 == 1 {
			data, dest = common.FromHex("0x602a60005260206000a000"), nil // logs the word 42
		}
		txs = append(txs, types.MustSignNewTx(acc.Key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: uint64(i), GasTipCap: big.NewInt(1),
			GasFeeCap: big.NewInt(1e10), Gas: 100000, To: dest, Value: big.NewInt(int64(i)), Data: data}))
	}
	mined(t, node, txs)

	l := &liar{node: node, every: 5, last: map[string]json.RawMessage{}}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	// The honest member serves only when the liar cannot (a lower tier):
	// every call the liar can take, it takes.
	honest := upstream.MemberConfig{Upstream: upstream.Func{ID: "honest", Fn: node.Do}, Priority: 1}
	var failures atomic.Int64
	checksOn := verify.Defaults()
	checksOn.TxHash = true   // off by default: a transaction's changed fields are caught by this opt-in check
	checksOn.TxSender = true // off by default: the liar's from is caught by this opt-in check
	p := startPool(t, upstream.PoolConfig{
		Verify: func(c upstream.Call, result json.RawMessage) error {
			return verify.Answer(checksOn, c.Rule, c.Params, result)
		},
		Quarantine: 20 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, HeadInterval: 20 * time.Millisecond, HeadMethod: "eth_blockNumber",
		// The test counts lies told against lies caught: a hedged read's
		// losing answer is cancelled unjudged, so a lie it carried would be
		// told and never caught (41 told, 40 caught on a loaded CI run).
		Hedge: upstream.HedgeConfig{Off: true},
	}, httpMember(t, srv.URL), honest)
	var checksMu sync.Mutex
	checks := map[string]int{}
	p.OnVerifyFailed = func(member, check string) {
		if member == "honest" {
			t.Errorf("the honest member failed check %s", check)
		}
		failures.Add(1)
		checksMu.Lock()
		checks[check]++
		checksMu.Unlock()
	}

	var calls []struct{ method, params string }
	for _, tx := range txs {
		h := tx.Hash()
		calls = append(calls,
			struct{ method, params string }{"eth_getTransactionByHash", fmt.Sprintf(`["%s"]`, h)},
			struct{ method, params string }{"eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, h)})
	}
	blocks := map[common.Hash]hexutil.Uint64{}
	for _, tx := range txs {
		var r struct {
			BlockHash   common.Hash    `json:"blockHash"`
			BlockNumber hexutil.Uint64 `json:"blockNumber"`
		}
		_ = json.Unmarshal(honestResult(t, node, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, tx.Hash())), &r)
		blocks[r.BlockHash] = r.BlockNumber
	}
	for hash, n := range blocks {
		b := struct{ Hash common.Hash }{hash}
		calls = append(calls, struct{ method, params string }{"eth_getBlockByNumber", fmt.Sprintf(`["0x%x",true]`, uint64(n))})
		calls = append(calls,
			struct{ method, params string }{"eth_getBlockByHash", fmt.Sprintf(`["%s",false]`, b.Hash)},
			struct{ method, params string }{"eth_getLogs", fmt.Sprintf(`[{"blockHash":"%s"}]`, b.Hash)})
	}
	const rounds = 40
	delivered, wrong := 0, 0
	for round := range rounds {
		testenv.WaitFor(t, 10*time.Second, "the liar back in service", func() bool { return p.Status()[0].Healthy })
		for i := range calls {
			c := calls[(i+round*7)%len(calls)] // each round from another call: the lies reach every kind
			got := send(t, p, c.method, c.params, true)
			if got.Err != nil {
				t.Fatalf("%s %s: %v", c.method, c.params, got.Err)
			}
			delivered++
			if want := honestResult(t, node, c.method, c.params); !sameJSON(got.Result, want) {
				wrong++
				t.Errorf("%s %s: delivered %.200s, the node says %.200s", c.method, c.params, got.Result, want)
			}
		}
	}
	t.Logf("%d calls, %d lies told, %d caught (by check: %v), %d corrupted answers delivered", delivered, l.lies.Load(), failures.Load(), checks, wrong)
	for _, check := range []string{verify.CheckIdentity, verify.CheckBlockHash, verify.CheckTxHash, verify.CheckTxSender} {
		if checks[check] == 0 {
			t.Errorf("no lie was caught by check %s: the liar's ways did not reach it", check)
		}
	}
	if l.lies.Load() < rounds {
		t.Fatalf("the liar told %d lies: the test did not test", l.lies.Load())
	}
	if failures.Load() != l.lies.Load() {
		t.Fatalf("%d lies, %d caught", l.lies.Load(), failures.Load())
	}
	if st := p.Status()[0]; st.VerifyFailures != uint64(l.lies.Load()) {
		t.Fatalf("status counts %d failed answers, want %d", st.VerifyFailures, l.lies.Load())
	}
}

// TestNoMemberPasses: when every member lies, the call is answered
// -32603 "upstream answer failed verification", never with a lie.
func TestNoMemberPasses(t *testing.T) {
	node := evmnodetest.Start(t, evmnode.Config{})
	l := &liar{node: node, every: 1, last: map[string]json.RawMessage{}}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	p := startPool(t, upstream.PoolConfig{
		Verify: func(c upstream.Call, result json.RawMessage) error {
			return verify.Answer(verify.Defaults(), c.Rule, c.Params, result)
		},
		Quarantine: time.Hour, HeadMethod: "eth_blockNumber",
	}, httpMember(t, srv.URL))
	got := send(t, p, "eth_getBlockByNumber", `["0x0",false]`, true)
	if got.Err == nil || got.Err.Code != jsonrpc.CodeInternal || !strings.Contains(got.Err.Message, "failed verification") {
		t.Fatalf("got %s %+v, want -32603 failed verification", got.Result, got.Err)
	}
	if st := p.Status()[0]; st.Healthy || st.QuarantinedUntil.IsZero() {
		t.Fatalf("the liar is not quarantined: %+v", st)
	}
	rule, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_getBlockByNumber")
	params := json.RawMessage(`["0x0",false]`)
	if resp, member, err := p.Send(context.Background(), upstream.Call{Body: jsonrpc.AppendRequest(nil, 1, "eth_getBlockByNumber", params),
		Rule: rule, Params: params, Idempotent: true}); err == nil {
		t.Fatalf("a quarantined member (%s) answered: %s %+v", member, resp.Result, resp.Err)
	}
}

func honestResult(t *testing.T, n *evmnode.Node, method, params string) json.RawMessage {
	t.Helper()
	out, err := n.Do(context.Background(), jsonrpc.AppendRequest(nil, 1, method, json.RawMessage(params)))
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil || resp.Err != nil {
		t.Fatalf("%s: %v %+v", method, err, resp.Err)
	}
	return resp.Result
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
