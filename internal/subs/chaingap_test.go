package subs

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestChainFeedWaitsForAFailingRead: the only member fails the next 12
// reads of a block (its header for newHeads, its logs), more than any
// fixed number of tries: blocks 6 and 7 still come, each once, in order,
// on both streams — a block that joined the chain is owed to every
// subscriber while it is on the chain (chainread.go), never skipped.
func TestChainFeedWaitsForAFailingRead(t *testing.T) {
	c := newFakeChain()
	h5 := c.add(1, 5, 0, 0)
	a := newFakeMember(t, c, h5)
	pool, hub := startFakePoolWith(t, Options{MaxBackoff: 20 * time.Millisecond}, a)
	testenv.WaitFor(t, 10*time.Second, "the pool at block 5", func() bool { return pool.Head() == 5 })

	r := newRecorder()
	cl := hub.NewClient(r, 10, nil)
	heads := subscribe(t, cl, `["newHeads"]`)
	logs := subscribe(t, cl, `["logs",{"address":"`+logAddr+`"}]`)

	a.failReads.Store(12)
	a.head.Store(c.add(6, 6, 0, 0))
	testenv.WaitFor(t, 10*time.Second, "the pool at block 6", func() bool { return pool.Head() == 6 })
	a.head.Store(c.add(7, 7, 0, 0))

	wantHeads := notes(heads, false, fakeHash(6, 0), fakeHash(7, 0))
	if got := waitNotes(t, r, 4, heads); !equalNotes(got, wantHeads) {
		t.Fatalf("heads %v, want %v", got, wantHeads)
	}
	wantLogs := notes(logs, false, fakeHash(6, 0), fakeHash(7, 0))
	if got := waitNotes(t, r, 4, logs); !equalNotes(got, wantLogs) {
		t.Fatalf("logs %v, want %v", got, wantLogs)
	}
	if n := a.failReads.Load(); n > 0 {
		t.Fatalf("%d failures left unused: the test did not fail the reads it means to", n)
	}
}

// TestChainHeadsNoGapAfterAFork: the chain was sent up to block 6; the
// members switch to a fork from block 5 that the pool first sees at block
// 8 (7 and 6 of the fork are read by hash). newHeads sends 7 and 8 of
// the fork — no number skipped after 6 — and not the fork's 6 (at or
// below the old head: never a head of the node's), as go-ethereum sends.
func TestChainHeadsNoGapAfterAFork(t *testing.T) {
	c := newFakeChain()
	h5 := c.add(1, 5, 0, 0)
	a := newFakeMember(t, c, h5)
	pool, hub := startFakePool(t, a)
	testenv.WaitFor(t, 10*time.Second, "the pool at block 5", func() bool { return pool.Head() == 5 })
	r := newRecorder()
	cl := hub.NewClient(r, 10, nil)
	heads := subscribe(t, cl, `["newHeads"]`)

	a.head.Store(c.add(6, 6, 0, 0))
	waitNotes(t, r, 1, heads)
	a.head.Store(c.add(6, 8, 1, 0))
	want := notes(heads, false, fakeHash(6, 0), fakeHash(7, 1), fakeHash(8, 1))
	if got := waitNotes(t, r, 3, heads); !equalNotes(got, want) {
		t.Fatalf("heads %v, want %v", got, want)
	}
}
