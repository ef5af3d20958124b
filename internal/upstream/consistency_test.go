package upstream_test

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// routeCall is one call as the route makes it.
func routeCall(method, params string, idempotent bool) upstream.Call {
	rule, _ := methods.NewTable(methods.FamilyEVM).Lookup(method)
	return upstream.Call{
		Body: jsonrpc.AppendRequest(nil, 1, method, json.RawMessage(params)),
		Rule: rule, Params: json.RawMessage(params), Idempotent: idempotent,
	}
}

// send makes one call through the pool as the route does.
func send(t *testing.T, p *upstream.Pool, method, params string, idempotent bool) *jsonrpc.Response {
	t.Helper()
	resp, _, err := p.Send(context.Background(), routeCall(method, params, idempotent))
	if err != nil {
		t.Fatalf("%s %s: %v", method, params, err)
	}
	return resp
}

// TestPoolRoutesByBlock: a call naming block N never reaches a member
// below N; a call naming an older block is spread over every member that
// has it.
func TestPoolRoutesByBlock(t *testing.T) {
	a, b := newChainNode(t, 10), newChainNode(t, 9)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	for _, c := range []struct{ method, params string }{
		{"eth_getBlockByNumber", `["0xa",false]`},
		{"eth_getLogs", `[{"fromBlock":"0xa","toBlock":"0xa"}]`},
		{"eth_getBlockByNumber", `["latest",false]`},
		{"eth_blockNumber", `[]`},
	} {
		for range 20 {
			if resp := send(t, p, c.method, c.params, true); resp.Err != nil || string(resp.Result) == "null" {
				t.Fatalf("%s %s: %s %v", c.method, c.params, resp.Result, resp.Err)
			}
		}
	}
	for _, m := range []string{"eth_getBlockByNumber", "eth_getLogs"} {
		if got := b.count(m); got != 0 {
			t.Fatalf("the member one block behind got %d %s calls naming a block it does not have", got, m)
		}
	}
	for range 40 {
		send(t, p, "eth_getBlockByNumber", `["0x5",false]`, true)
	}
	if b.count("eth_getBlockByNumber") == 0 {
		t.Fatal("a block every member has was never asked of the member behind")
	}
}

// TestPoolLearnsHeadsFromAnswers: heads are polled once an hour, but an
// answer that proves a member has a block raises its head at once, so no
// later answer comes from a member without it: eth_blockNumber never goes
// backwards, a receipt once found is never null again.
func TestPoolLearnsHeadsFromAnswers(t *testing.T) {
	a, b := newChainNode(t, 9), newChainNode(t, 9)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	a.place("0xt", 10)
	b.place("0xt", 10)
	a.head.Store(10) // a new block on a: the pool is not told
	testenv.WaitFor(t, 5*time.Second, "a receipt from the member ahead", func() bool {
		return string(send(t, p, "eth_getTransactionReceipt", `["0xt"]`, true).Result) != "null"
	})
	for range 30 {
		if got := send(t, p, "eth_getTransactionReceipt", `["0xt"]`, true); string(got.Result) == "null" {
			t.Fatal("a receipt once found came back null")
		}
		if got := send(t, p, "eth_blockNumber", `[]`, true); string(got.Result) != `"0xa"` {
			t.Fatalf("eth_blockNumber %s after a receipt of block 10 was given", got.Result)
		}
	}
}

// TestPoolRetriesLagAnswers: a null (or "beyond current head") from a
// member behind another is asked once more, of a member ahead; from the
// highest member it is the answer; a real null costs at most one more try.
func TestPoolRetriesLagAnswers(t *testing.T) {
	a, b := newChainNode(t, 10), newChainNode(t, 9)
	// max_lag 1: the member behind is chosen for calls at the head.
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, MaxLag: 1}, httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	a.place("0xt", 10)
	b.place("0xt", 10)
	for range 30 {
		if got := send(t, p, "eth_getTransactionReceipt", `["0xt"]`, true); string(got.Result) == "null" {
			t.Fatal("a lagging member's null was the answer while a member ahead had the receipt")
		}
	}
	if b.count("eth_getTransactionReceipt") == 0 {
		t.Fatal("the member behind was never asked: the test shows nothing")
	}
	before := a.count("eth_getTransactionReceipt") + b.count("eth_getTransactionReceipt")
	for range 30 {
		if got := send(t, p, "eth_getTransactionReceipt", `["0xnone"]`, true); string(got.Result) != "null" {
			t.Fatalf("unknown transaction: %s", got.Result)
		}
	}
	if asked := a.count("eth_getTransactionReceipt") + b.count("eth_getTransactionReceipt") - before; asked > 60 || asked <= 30 {
		t.Fatalf("30 real nulls took %d tries; want more than 30 (the member behind is asked again elsewhere) and at most 60", asked)
	}

	// Members at the same head: a null is the answer at once.
	c, d := newChainNode(t, 10), newChainNode(t, 10)
	// No hedged reads: the test counts tries, and a loaded machine's late answer would be hedged (31 once).
	q := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, Hedge: upstream.HedgeConfig{Off: true}}, httpMember(t, c.srv.URL), httpMember(t, d.srv.URL))
	for range 30 {
		send(t, q, "eth_getTransactionReceipt", `["0xnone"]`, true)
	}
	if asked := c.count("eth_getTransactionReceipt") + d.count("eth_getTransactionReceipt"); asked != 30 {
		t.Fatalf("30 nulls from members at the head took %d tries, want 30", asked)
	}
}

// TestPoolAsksAgainWhenAMemberWentBack: a member known to have block 9
// that answers null for it went back since it said where it is (a rewind
// to a shorter chain it has not reported yet): the call is asked of a
// member that has the block, not answered null while the chain holds it.
func TestPoolAsksAgainWhenAMemberWentBack(t *testing.T) {
	a, b := newChainNode(t, 10), newChainNode(t, 10)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, Hedge: upstream.HedgeConfig{Off: true}},
		httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	testenv.WaitFor(t, 5*time.Second, "both members at 10", func() bool {
		return p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10
	})
	b.head.Store(8) // b rewinds; the pool is not told
	for i := range 30 {
		if got := send(t, p, "eth_getBlockByNumber", `["0x9",false]`, true); string(got.Result) == "null" {
			t.Fatalf("call %d: block 9 answered null by the member that went back, while the other has it", i)
		}
	}
	if b.count("eth_getBlockByNumber") == 0 {
		t.Fatal("the member that went back was never asked: the test shows nothing")
	}
}

// TestPoolWaitsForAMemberToReachTheHead: when the member at the head dies,
// calls wait for the member one block behind to reach the head the clients
// were given rather than fail (or answer from below).
func TestPoolWaitsForAMemberToReachTheHead(t *testing.T) {
	a, b := newChainNode(t, 10), newChainNode(t, 9)
	p := startPool(t, upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, ProbeInterval: 20 * time.Millisecond},
		httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	if got := send(t, p, "eth_blockNumber", `[]`, true); string(got.Result) != `"0xa"` {
		t.Fatalf("head %s", got.Result)
	}
	a.srv.Close()
	time.AfterFunc(300*time.Millisecond, func() { b.head.Store(10) })
	start := time.Now()
	for range 10 {
		if got := send(t, p, "eth_blockNumber", `[]`, true); string(got.Result) != `"0xa"` {
			t.Fatalf("eth_blockNumber %s after the head member died; want 0xa", got.Result)
		}
	}
	t.Logf("calls waited %v for the member behind", time.Since(start))
}

// TestPoolBroadcastsWrites: a signed transaction reaches every member (they
// do not gossip); a member that already has it took it; with broadcast
// off, one member gets it.
func TestPoolBroadcastsWrites(t *testing.T) {
	tx, raw := signedTx(t)
	hash := `"` + tx.Hash().Hex() + `"`
	a, b := newChainNode(t, 10), newChainNode(t, 10)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	if got := send(t, p, "eth_sendRawTransaction", `["`+raw+`"]`, false); string(got.Result) != `"0xtaken"` {
		t.Fatalf("first send: %s %v", got.Result, got.Err)
	}
	testenv.WaitFor(t, 5*time.Second, "every member to have the transaction", func() bool { return a.has(raw) && b.has(raw) })
	if got := send(t, p, "eth_sendRawTransaction", `["`+raw+`"]`, false); string(got.Result) != hash {
		t.Fatalf("sent again (already known everywhere): %s %v, want the hash %s", got.Result, got.Err, hash)
	}
	c := newChainNode(t, 10)
	c.refuse = "insufficient funds for gas * price + value"
	q := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, c.srv.URL), httpMember(t, newChainNode(t, 10).srv.URL))
	if got := send(t, q, "eth_sendRawTransaction", `["`+raw+`"]`, false); string(got.Result) != `"0xtaken"` {
		t.Fatalf("one member refused, one took it: %s %v", got.Result, got.Err)
	}

	e, f := newChainNode(t, 10), newChainNode(t, 10)
	one := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, NoBroadcast: true}, httpMember(t, e.srv.URL), httpMember(t, f.srv.URL))
	send(t, one, "eth_sendRawTransaction", `["`+raw+`"]`, false)
	time.Sleep(100 * time.Millisecond)
	if e.has(raw) == f.has(raw) {
		t.Fatalf("broadcast off: members have it %v and %v, want exactly one", e.has(raw), f.has(raw))
	}
}

// signedTx is a well-formed transaction signed for chain 5 by a new
// account (unfunded), and its bytes in hex.
func signedTx(t *testing.T) (*types.Transaction, string) {
	t.Helper()
	signer, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0xaa")
	tx, err := types.SignNewTx(signer, types.LatestSignerForChainID(big.NewInt(5)),
		&types.DynamicFeeTx{ChainID: big.NewInt(5), GasFeeCap: big.NewInt(1e9), Gas: 21000, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	bin, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return tx, hexutil.Encode(bin)
}
