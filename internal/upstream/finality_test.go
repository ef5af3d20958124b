package upstream_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

var blockByNumberRule, _ = methods.NewTable(methods.FamilyEVM).Lookup("eth_getBlockByNumber")

// finalizedGiven asks the pool for the finalized block and returns its number.
func finalizedGiven(t *testing.T, p *upstream.Pool) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	params := json.RawMessage(`["finalized",false]`)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["finalized",false]}`)
	resp, _, err := p.Send(ctx, upstream.Call{Body: body, Rule: blockByNumberRule, Params: params, Idempotent: true})
	if err != nil || resp.Err != nil {
		t.Fatalf("finalized: %v %v", err, resp)
	}
	var b struct {
		Number hexutil.Uint64 `json:"number"`
	}
	if err := json.Unmarshal(resp.Result, &b); err != nil {
		t.Fatalf("finalized %s: %v", resp.Result, err)
	}
	return uint64(b.Number)
}

// TestPoolFinalizedNeverGoesBack: once the pool gave finalized block 8,
// a member whose finalized block is 6 (its finality lags) is not the
// answer: the call is asked of a member that has 8.
func TestPoolFinalizedNeverGoesBack(t *testing.T) {
	b := newForkNode(t, "b", forkBlock{10, 0, 0}) // preferred
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	b.finalizedAt(forkBlock{8, 0, 0})
	a.finalizedAt(forkBlock{8, 0, 0})
	p := startForkPoolTiers(t, b, a)
	if n := finalizedGiven(t, p); n != 8 {
		t.Fatalf("finalized %d, want 8", n)
	}
	b.finalizedAt(forkBlock{6, 0, 0})
	for i := range 20 {
		if n := finalizedGiven(t, p); n != 8 {
			t.Fatalf("call %d: finalized %d after 8 was given", i, n)
		}
	}
	a.finalizedAt(forkBlock{9, 0, 0})
	if n := finalizedGiven(t, p); n != 9 {
		t.Fatalf("finalized %d, want a's 9", n)
	}
}

// TestPoolTakesOutAMemberFinalizingAnotherChain: a member whose finalized
// block is not the canonical block at its height is out of service until
// its finalized block is on the chain again.
func TestPoolTakesOutAMemberFinalizingAnotherChain(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	members := forkMembers(t, a, b)
	p := startPool(t, upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber", TrackFinalized: true,
		HeadInterval: 10 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour}, members...)
	a.set(forkBlock{10, 0, 0})
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "both at 10", func() bool { return p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10 })
	b.finalizedAt(forkBlock{9, 1, 0})
	a.set(forkBlock{11, 0, 0})
	b.set(forkBlock{11, 0, 0}) // a new head: b's finalized block is asked again
	testenv.WaitFor(t, 10*time.Second, "b out of service", func() bool { return !p.Members()[1].Healthy() })
	if st := p.Status()[1]; st.LastError == "" {
		t.Errorf("b is out with no reason")
	}
	for i := range 20 {
		if m := answeredBy(t, p); m != "a" {
			t.Fatalf("call %d answered by %s, whose finalized block is off the chain", i, m)
		}
	}
	b.finalizedAt(forkBlock{9, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "b back in service", func() bool { return p.Members()[1].Healthy() })
}

// TestPoolJudgesFinalityOnlyOnAChainHoldingTheHead: the head member moves
// to a fork from block 9 (the chain follows it, linked); the other member
// is still on the old branch, which it extends, with its finalized block
// on that branch. Its finalized block is not judged against a chain that
// does not hold its head: it stays in service (on another branch, not
// chosen), not taken out as a member finalizing another chain.
func TestPoolJudgesFinalityOnlyOnAChainHoldingTheHead(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	p := startPool(t, upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber", TrackFinalized: true,
		HeadInterval: 10 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour},
		forkMembers(t, a, b)...)
	a.set(forkBlock{10, 0, 0})
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "both at 10", func() bool { return p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10 })
	a.setFork(forkBlock{11, 1, 1}, 1) // 11/1 on 10/1 on 9/0
	testenv.WaitFor(t, 10*time.Second, "the chain on fork 1 at 10", func() bool {
		h, ok := p.Canonical(10)
		return ok && h.Hex() == hashOf(10, 1)
	})
	b.finalizedAt(forkBlock{10, 0, 0})
	for n := uint64(11); n <= 13; n++ { // each head asks b's finalized block again
		b.set(forkBlock{n, 0, 0})
		testenv.WaitFor(t, 10*time.Second, "b's head to move", func() bool { return p.Members()[1].Head() == n })
	}
	if !p.Members()[1].Healthy() {
		t.Fatalf("b taken out of service: %s", p.Status()[1].LastError)
	}
	for i := range 20 {
		if m := answeredBy(t, p); m != "a" {
			t.Fatalf("call %d answered by %s, on the abandoned branch", i, m)
		}
	}
}
