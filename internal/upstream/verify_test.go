package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
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
	"github.com/nodegate/nodegate/internal/faultproxy"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/verify"
	"github.com/nodegate/nodegate/jsonrpc"
)

// liarWays are the ways TestLiarIsCaught's liar tells lies: every one a
// check sees (a receipt's status and a log's data are not checked).
var liarWays = []string{faultproxy.WayHash, faultproxy.WayParentHash, faultproxy.WayTransactionsRoot, faultproxy.WayTxField,
	faultproxy.WayTxNonce, faultproxy.WayTxSender, faultproxy.WayLogBlockHash, faultproxy.WayAnother}

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
	node := evmnodetest.StartHTTP(t)
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

	l := faultproxy.Start(t, node.HTTPEndpoint(), faultproxy.Config{LieEvery: 5, Ways: liarWays})
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
	}, httpMember(t, l.URL), honest)
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
	t.Logf("%d calls, %d lies told, %d caught (by check: %v), %d corrupted answers delivered", delivered, l.Told(), failures.Load(), checks, wrong)
	for _, check := range []string{verify.CheckIdentity, verify.CheckBlockHash, verify.CheckTxHash, verify.CheckTxSender} {
		if checks[check] == 0 {
			t.Errorf("no lie was caught by check %s: the liar's ways did not reach it", check)
		}
	}
	if l.Told() < rounds {
		t.Fatalf("the liar told %d lies: the test did not test", l.Told())
	}
	if failures.Load() != l.Told() {
		t.Fatalf("%d lies, %d caught", l.Told(), failures.Load())
	}
	if st := p.Status()[0]; st.VerifyFailures != uint64(l.Told()) {
		t.Fatalf("status counts %d failed answers, want %d", st.VerifyFailures, l.Told())
	}
}

// TestNoMemberPasses: when every member lies, the call is answered
// -32603 "upstream answer failed verification", never with a lie.
//
// The block asked for is block 1 (one transfer mined): the fault proxy
// tells no lie about the genesis block, the pool's own call.
func TestNoMemberPasses(t *testing.T) {
	node := evmnodetest.StartHTTP(t)
	acc := node.Accounts()[0]
	chainID := new(big.Int).SetUint64(node.ChainID())
	to := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	mined(t, node, []*types.Transaction{types.MustSignNewTx(acc.Key, types.LatestSignerForChainID(chainID),
		&types.DynamicFeeTx{ChainID: chainID, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e10), Gas: 21000, To: &to, Value: big.NewInt(1)})})
	l := faultproxy.Start(t, node.HTTPEndpoint(), faultproxy.Config{LieEvery: 1})
	p := startPool(t, upstream.PoolConfig{
		Verify: func(c upstream.Call, result json.RawMessage) error {
			return verify.Answer(verify.Defaults(), c.Rule, c.Params, result)
		},
		Quarantine: time.Hour, HeadMethod: "eth_blockNumber",
	}, httpMember(t, l.URL))
	got := send(t, p, "eth_getBlockByNumber", `["0x1",false]`, true)
	if got.Err == nil || got.Err.Code != jsonrpc.CodeInternal || !strings.Contains(got.Err.Message, "failed verification") {
		t.Fatalf("got %s %+v, want -32603 failed verification", got.Result, got.Err)
	}
	if st := p.Status()[0]; st.Healthy || st.QuarantinedUntil.IsZero() {
		t.Fatalf("the liar is not quarantined: %+v", st)
	}
	rule, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_getBlockByNumber")
	params := json.RawMessage(`["0x1",false]`)
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
