package upstream_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// startForkPoolTiers is startForkPool with the nodes in priority tiers
// (the first node preferred), so that a test knows who is asked first.
func startForkPoolTiers(t *testing.T, nodes ...*forkNode) *upstream.Pool {
	t.Helper()
	members := forkMembers(t, nodes...)
	for i := range members {
		members[i].Priority = i
	}
	return startPool(t, upstream.PoolConfig{
		HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval:    10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour,
	}, members...)
}

var receiptRule, _ = methods.NewTable(methods.FamilyEVM).Lookup("eth_getTransactionReceipt")

// receiptFrom sends an eth_getTransactionReceipt and returns the answer's
// block hash and who gave it.
func receiptFrom(t *testing.T, p *upstream.Pool) (hash, from string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	params := json.RawMessage(`["0x` + "11" + `"]`)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionReceipt","params":["0x11"]}`)
	resp, _, err := p.Send(ctx, upstream.Call{Body: body, Rule: receiptRule, Params: params, Idempotent: true})
	if err != nil || resp.Err != nil {
		t.Fatalf("receipt: %v %v", err, resp)
	}
	var r struct {
		BlockHash string `json:"blockHash"`
		From      string `json:"from"`
	}
	if err := json.Unmarshal(resp.Result, &r); err != nil {
		t.Fatalf("receipt %s: %v", resp.Result, err)
	}
	return r.BlockHash, r.From
}

// TestPoolAsksAgainForAnAnswerOffTheChain: the preferred member answers
// a receipt in a block that is not the canonical block at its height (it
// moved to another fork since its head was read): the answer is a lag
// answer, asked of the member on the canonical branch, whose answer is
// the one given; and the member is not asked again until its head says it
// is back on the chain.
func TestPoolAsksAgainForAnAnswerOffTheChain(t *testing.T) {
	b := newForkNode(t, "b", forkBlock{9, 0, 0}) // preferred
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	p := startForkPoolTiers(t, b, a)
	a.set(forkBlock{10, 0, 0})
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "both at 10", func() bool {
		h, ok := p.Canonical(10)
		return ok && h.Hex() == hashOf(10, 0) && p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10
	})
	if h, from := receiptFrom(t, p); from != "b" || h != hashOf(10, 0) {
		t.Fatalf("before the fork: a receipt in %s from %s, want its head block from b", h, from)
	}
	a.receiptsIn(forkBlock{9, 0, 0})
	b.receiptsIn(forkBlock{9, 1, 0})
	for i := range 20 {
		if h, from := receiptFrom(t, p); h != hashOf(9, 0) || from != "a" {
			t.Fatalf("call %d: a receipt in %s from %s, want the canonical block 9 from a", i, h, from)
		}
	}
}

// TestPoolTakesAnOffChainAnswerWhenNoMemberCanDoBetter: with one member,
// an answer naming a block off the canonical chain is still the answer
// (no member on the canonical branch can answer).
func TestPoolTakesAnOffChainAnswerWhenNoMemberCanDoBetter(t *testing.T) {
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	p := startForkPoolTiers(t, b)
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "b at 10", func() bool { return p.Members()[0].Head() == 10 })
	b.receiptsIn(forkBlock{9, 1, 0})
	if h, from := receiptFrom(t, p); h != hashOf(9, 1) || from != "b" {
		t.Fatalf("a receipt in %s from %s, want fork 1's block 9 from b", h, from)
	}
}
