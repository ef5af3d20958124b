package upstream_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// holdSharer holds the first Published call made after it is armed
// until released, as a fleet's sharer holds an answer until the head
// move it shows reaches Redis; every other call returns at once.
type holdSharer struct {
	once    sync.Once
	held    chan struct{} // closed when the call is held
	release chan struct{}
}

func newHoldSharer() *holdSharer {
	return &holdSharer{held: make(chan struct{}), release: make(chan struct{})}
}

func (s *holdSharer) HeadMoved(uint64, bool) {}

func (s *holdSharer) Published(ctx context.Context) {
	s.once.Do(func() {
		close(s.held)
		select {
		case <-s.release:
		case <-ctx.Done():
		}
	})
}

// reorgUnderAnswer starts a pool over one node at block 10 of fork 0 and
// a call (send) for block 10 by number; while the call's answer (fork
// 0's block) is held on its way out, the node and the pool's chain
// reorganise to block 10 of fork 1. It returns what send returned.
func reorgUnderAnswer(t *testing.T, send func(*upstream.Pool) string) string {
	t.Helper()
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startForkPool(t, a)
	testenv.WaitFor(t, 10*time.Second, "the pool at 10", func() bool { return p.Head() == 10 })
	s := newHoldSharer()
	p.ShareHeads(s)
	got := make(chan string, 1)
	go func() { got <- send(p) }()
	select {
	case <-s.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the call's answer never reached the sharer")
	}
	a.set(forkBlock{10, 1, 0}) // an equal fork: block 10 of fork 1 on block 9
	testenv.WaitFor(t, 10*time.Second, "the chain to switch to fork 1", func() bool {
		h, _ := p.Canonical(10)
		return h.Hex() == hashOf(10, 1)
	})
	close(s.release)
	select {
	case hash := <-got:
		return hash
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	return ""
}

// blockTen is a call for block 10 by number.
var blockTen = struct {
	body   []byte
	params json.RawMessage
}{[]byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0xa",false]}`), json.RawMessage(`["0xa",false]`)}

// hashIn is the "hash" of a block answer ("" for none).
func hashIn(t *testing.T, result json.RawMessage) string {
	t.Helper()
	var b *struct{ Hash string }
	if err := json.Unmarshal(result, &b); err != nil {
		t.Errorf("answer %s: %v", result, err)
	}
	if b == nil {
		return ""
	}
	return b.Hash
}

// TestPoolAsksAgainWhenTheChainLeftTheAnswer: the chain reorganised while
// a call's answer was on its way out (held until the new head is
// published): the answer, a block that left the chain, is not given; the
// call is asked again and answers the new branch's block (issue 31: a
// client given the new head by one replica must not get the old branch
// after it).
func TestPoolAsksAgainWhenTheChainLeftTheAnswer(t *testing.T) {
	rule := hedgeRule(t, "eth_getBlockByNumber")
	got := reorgUnderAnswer(t, func(p *upstream.Pool) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, _, err := p.Send(ctx, upstream.Call{Body: blockTen.body, Rule: rule, Params: blockTen.params, Idempotent: true})
		if err != nil || resp.Err != nil {
			t.Errorf("block 10: %v %v", err, resp)
			return ""
		}
		return hashIn(t, resp.Result)
	})
	if want := hashOf(10, 1); got != want {
		t.Errorf("block 10 answered %s, want the new branch's %s (fork 0's is %s)", got, want, hashOf(10, 0))
	}
}

// TestBatchLeavesOutAnAnswerTheChainLeft: the same in an upstream batch:
// the call whose answer the chain left is not answered by the batch (it
// goes alone, and is asked again there).
func TestBatchLeavesOutAnAnswerTheChainLeft(t *testing.T) {
	rule := hedgeRule(t, "eth_getBlockByNumber")
	call := upstream.BatchCall{Method: "eth_getBlockByNumber", Rule: rule, Params: blockTen.params}
	got := reorgUnderAnswer(t, func(p *upstream.Pool) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out := p.ForwardBatch(ctx, []upstream.BatchCall{call, call})
		hashes := ""
		for _, a := range out {
			if a.Resp != nil {
				hashes += hashIn(t, a.Resp.Result)
			}
		}
		return hashes
	})
	if got != "" {
		t.Errorf("the batch answered %s; want no answer (fork 0's is %s)", got, hashOf(10, 0))
	}
}
