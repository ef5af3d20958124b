package upstream_test

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestPoolFinalIsTheAnsweringMembers: an answer is final for the cache
// only as the member that gave it has it: in service, on the canonical
// branch, its own finalized block at or above it, and its hash the
// canonical one at that height.
func TestPoolFinalIsTheAnsweringMembers(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	members := forkMembers(t, a, b)
	// The fork nodes answer "finalized" with their head block.
	p := startPool(t, upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber", TrackFinalized: true,
		HeadInterval: 10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour}, members...)
	a.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "a's block 10 final", func() bool {
		_, ok := p.Final(p.Members()[0].Name(), 10, common.HexToHash(hashOf(10, 0)))
		return ok
	})
	nameA, nameB := p.Members()[0].Name(), p.Members()[1].Name()
	if h, ok := p.Final(nameA, 9, common.Hash{}); !ok || h.Hex() != hashOf(9, 0) {
		t.Errorf("block 9 by a, no hash: %s %v, want final with the canonical hash", h.Hex(), ok)
	}
	if _, ok := p.Final(nameB, 10, common.HexToHash(hashOf(10, 0))); ok {
		t.Errorf("block 10 by b, whose finalized block is 9: final")
	}
	if _, ok := p.Final(nameA, 9, common.HexToHash(hashOf(9, 1))); ok {
		t.Errorf("block 9 of another fork by a: final")
	}
	if _, ok := p.Final("partner", 9, common.Hash{}); ok {
		t.Errorf("an answer of no member: final")
	}
	b.set(forkBlock{10, 2, 0}) // b's own block 10, a stays the head member
	testenv.WaitFor(t, 10*time.Second, "b at 10", func() bool { return p.Members()[1].Head() == 10 })
	if _, ok := p.Final(nameB, 9, common.Hash{}); ok {
		t.Errorf("block 9 by b, on another branch: final")
	}
}

// TestPoolToldOfHeightsLeavingTheChain: a reorg to a shorter fork tells
// OnReorg (the cache's DropFrom) the heights that left the chain, from
// the fork's head to the old head.
func TestPoolToldOfHeightsLeavingTheChain(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	p := upstream.NewPool("test", upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval: 10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour}, forkMembers(t, a)...)
	left := make(chan [2]uint64, 16)
	p.OnReorg = func(from, to uint64) { left <- [2]uint64{from, to} }
	p.Start(t.Context())
	t.Cleanup(p.Close)
	a.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "a at 10", func() bool { return p.Head() == 10 })
	a.set(forkBlock{9, 1, 0})
	testenv.WaitFor(t, 10*time.Second, "the chain to follow a to 9", func() bool { return p.Head() == 9 })
	var got [2]uint64
	testenv.WaitFor(t, 10*time.Second, "OnReorg told of the reorg", func() bool {
		select {
		case got = <-left:
			return true
		default:
			return false
		}
	})
	if got != [2]uint64{9, 10} {
		t.Errorf("told heights %d..%d left, want 9..10", got[0], got[1])
	}
}
