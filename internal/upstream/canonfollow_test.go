package upstream_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/upstream"
)

// forkFetch reads blocks a test registered by hash (what a node would
// answer to eth_getBlockByHash), counting the reads.
type forkFetch struct {
	mu     sync.Mutex
	blocks map[common.Hash]upstream.CanonBlock
	reads  int
}

func (f *forkFetch) add(bs ...forkBlock) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range bs {
		h := common.HexToHash(hashOf(b.n, b.f))
		f.blocks[h] = upstream.CanonBlock{Number: b.n, Hash: h, Parent: common.HexToHash(hashOf(b.n-1, b.pf))}
	}
}

func (f *forkFetch) fetch(_ context.Context, h common.Hash) (upstream.CanonBlock, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	b, ok := f.blocks[h]
	if !ok {
		return b, fmt.Errorf("unknown block %s", h.Hex())
	}
	return b, nil
}

// summary renders an event as "-n/f ... +n/f ... =n/f" (=: the head again).
func summary(ev upstream.CanonEvent) string {
	s := ""
	for _, b := range ev.Removed {
		s += fmt.Sprintf("-%d/%d ", b.Number, b.Hash[0])
	}
	for _, b := range ev.Added {
		s += fmt.Sprintf("+%d/%d ", b.Number, b.Hash[0])
	}
	if b := ev.Again; b.Hash != (common.Hash{}) {
		s += fmt.Sprintf("=%d/%d ", b.Number, b.Hash[0])
	}
	return s
}

func nextEvent(t *testing.T, events <-chan upstream.CanonEvent) string {
	t.Helper()
	select {
	case ev := <-events:
		return summary(ev)
	case <-time.After(10 * time.Second):
		t.Fatal("no change of the canonical chain within 10s")
	}
	return ""
}

// TestCanonFollow: a follower of the canonical chain is told each block
// that joins it once, lowest first (also those no poll saw, read by
// hash), and, when the chain reorganises (to a shorter fork, back to a
// block already reported), each block that leaves it, lowest first, and
// the block it went back to as the head again.
func TestCanonFollow(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startForkPool(t, a)
	f := &forkFetch{blocks: map[common.Hash]upstream.CanonBlock{}}
	f.add(forkBlock{10, 0, 0}, forkBlock{11, 0, 0}, forkBlock{12, 0, 0}, forkBlock{11, 1, 0}, forkBlock{12, 1, 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := p.Canon().Follow(ctx, f.fetch)

	steps := []struct {
		name string
		head forkBlock
		want string
	}{
		{"two blocks, the first unseen by the poll", forkBlock{12, 0, 0}, "+11/0 +12/0 "},
		{"a shorter fork", forkBlock{11, 1, 0}, "-11/0 -12/0 +11/1 "},
		{"back to the fork point", forkBlock{10, 0, 0}, "-11/1 =10/0 "},
		{"the fork again, one block further", forkBlock{12, 1, 1}, "+11/1 +12/1 "},
	}
	for _, s := range steps {
		a.set(s.head)
		if got := nextEvent(t, events); got != s.want {
			t.Fatalf("%s: event %q, want %q", s.name, got, s.want)
		}
	}
	if f.reads > 2 {
		t.Errorf("%d blocks read by hash, want 2 (11/0 and 11/1: no other was skipped by the polls)", f.reads)
	}
}
