package upstream_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestBatchAnswerOffTheChainGoesAlone: the calls of an upstream batch are
// judged by hash as single calls are. The preferred member, which takes
// batches, answers receipts in a block that is not the canonical block at
// its height (it moved to another fork since its head was read): those
// answers are not taken from the batch; each call goes alone, where it is
// judged again and asked of the member on the canonical branch. Receipts
// in the canonical block are taken from the batch as before.
func TestBatchAnswerOffTheChainGoesAlone(t *testing.T) {
	for _, tt := range []struct {
		name     string
		receipts forkBlock // the block the preferred member's receipts name
		taken    bool      // the batch's answers are the calls' answers
	}{
		{"receipts in the canonical block", forkBlock{9, 0, 0}, true},
		{"receipts in another fork's block", forkBlock{9, 1, 0}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newForkNode(t, "b", forkBlock{9, 0, 0}) // preferred, takes batches
			a := newForkNode(t, "a", forkBlock{9, 0, 0})
			members := forkMembers(t, b, a)
			members[0].BatchSize = 10
			members[1].Priority = 1
			p := startPool(t, upstream.PoolConfig{
				HeadBlockMethod: "eth_getBlockByNumber",
				HeadInterval:    10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour,
			}, members...)
			a.set(forkBlock{10, 0, 0})
			b.set(forkBlock{10, 0, 0})
			testenv.WaitFor(t, 10*time.Second, "both at 10", func() bool {
				h, ok := p.Canonical(10)
				return ok && h.Hex() == hashOf(10, 0) && p.Members()[0].Head() == 10 && p.Members()[1].Head() == 10
			})
			b.receiptsIn(tt.receipts)
			a.receiptsIn(forkBlock{9, 0, 0})
			calls := make([]upstream.BatchCall, 3)
			for i := range calls {
				calls[i] = upstream.BatchCall{Method: "eth_getTransactionReceipt", Rule: receiptRule, Params: json.RawMessage(`["0x11"]`)}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for i, got := range p.ForwardBatch(ctx, calls) {
				switch {
				case tt.taken && got.Resp == nil:
					t.Errorf("call %d: no answer from the batch, want b's receipt in the canonical block", i)
				case !tt.taken && got.Resp != nil:
					t.Errorf("call %d: answered from the batch with %s, want none (sent alone: its block is off the chain)", i, got.Resp.Result)
				case !tt.taken && got.Failed == nil:
					t.Errorf("call %d: goes alone without the member to avoid", i)
				}
			}
			if !tt.taken {
				// Alone, each call is judged again and asked of a.
				if h, from := receiptFrom(t, p); h != hashOf(9, 0) || from != "a" {
					t.Fatalf("alone: a receipt in %s from %s, want the canonical block 9 from a", h, from)
				}
			}
		})
	}
}
