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

// holdSharer holds the first Published call until released, as a
// fleet's sharer holds an answer until the head move it shows reaches
// Redis; every other call returns at once.
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

// reorgUnderAnswer starts a pool over one node at head and a call
// (send); while the call's answer is held on its way out, the node and
// the pool's chain reorganise to fork, a head at or below head's height.
// It returns what send returned.
func reorgUnderAnswer(t *testing.T, head, fork forkBlock, send func(*upstream.Pool) string) string {
	t.Helper()
	a := newForkNode(t, "a", head)
	p := startForkPool(t, a)
	testenv.WaitFor(t, 10*time.Second, "the pool at its head", func() bool { return p.Head() == head.n })
	s := newHoldSharer()
	p.ShareHeads(s)
	got := make(chan string, 1)
	go func() { got <- send(p) }()
	select {
	case <-s.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the call's answer never reached the sharer")
	}
	a.set(fork)
	testenv.WaitFor(t, 10*time.Second, "the chain to switch to the fork", func() bool {
		h, _ := p.Canonical(fork.n)
		return h.Hex() == hashOf(fork.n, fork.f)
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

// blockHashOf asks p for a block by number (params) as the route does
// and returns the answer's block hash ("" for none, or a failure, which
// is reported: it runs beside the test's goroutine).
func blockHashOf(t *testing.T, p *upstream.Pool, params string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, _, err := p.Send(ctx, routeCall("eth_getBlockByNumber", params, true))
	if err != nil || resp.Err != nil {
		t.Errorf("block %s: %v %v", params, err, resp)
		return ""
	}
	return hashIn(t, resp.Result)
}

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
	got := reorgUnderAnswer(t, forkBlock{10, 0, 0}, forkBlock{10, 1, 0}, func(p *upstream.Pool) string { // an equal fork
		return blockHashOf(t, p, `["0xa",false]`)
	})
	if want := hashOf(10, 1); got != want {
		t.Errorf("block 10 answered %s, want the new branch's %s (fork 0's is %s)", got, want, hashOf(10, 0))
	}
}

// TestPoolAsksAgainWhenARewindLeftTheAnswerAbove: the same after a
// reorganisation to a shorter chain: the answer, block 11 of the branch
// left, is now above the chain's head; it is a block the chain left, not
// one ahead of it, and is asked again.
func TestPoolAsksAgainWhenARewindLeftTheAnswerAbove(t *testing.T) {
	got := reorgUnderAnswer(t, forkBlock{11, 0, 0}, forkBlock{10, 1, 0}, func(p *upstream.Pool) string { // block 10 of fork 1 on block 9
		return blockHashOf(t, p, `["0xb",false]`)
	})
	if got == hashOf(11, 0) {
		t.Errorf("block 11 answered %s, the block the rewind left", got)
	}
}

// TestBatchLeavesOutAnAnswerTheChainLeft: the same in an upstream batch:
// the call whose answer the chain left is not answered by the batch (it
// goes alone, and is asked again there).
func TestBatchLeavesOutAnAnswerTheChainLeft(t *testing.T) {
	c := routeCall("eth_getBlockByNumber", `["0xa",false]`, true)
	call := upstream.BatchCall{Method: "eth_getBlockByNumber", Rule: c.Rule, Params: c.Params}
	got := reorgUnderAnswer(t, forkBlock{10, 0, 0}, forkBlock{10, 1, 0}, func(p *upstream.Pool) string {
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
