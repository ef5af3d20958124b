package upstream_test

import (
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// moves records the head moves a pool shares.
type moves struct {
	mu   sync.Mutex
	list []string
}

func (m *moves) HeadMoved(n uint64, rewound bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kind := "rose"
	if rewound {
		kind = "rewound"
	}
	m.list = append(m.list, kind+" "+string(rune('0'+n%10)))
}

func (m *moves) last() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.list) == 0 {
		return ""
	}
	return m.list[len(m.list)-1]
}

func (m *moves) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.list)
}

// TestPoolSharesHeads: a pool tells its sharer of each head rise once
// (not per call), with no allocation on the read path; a peer's higher
// head raises the pool's head until a member reaches it, and a peer's
// rewind lowers it again.
func TestPoolSharesHeads(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startForkPool(t, a)
	var m moves
	p.ShareHeads(&m)
	p.Head() // the first head given: 10
	a.set(forkBlock{11, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "the pool at 11", func() bool { return p.Head() == 11 })
	for range 1000 {
		p.Head()
	}
	if got := m.count(); got != 2 {
		t.Errorf("%d head moves shared for the first head and one rise (%v), want 2", got, m.list)
	}
	if allocs := testing.AllocsPerRun(1000, func() { p.Head() }); allocs != 0 {
		t.Errorf("the pool's head with a sharer: %v allocations a call, want 0", allocs)
	}

	for _, tc := range []struct {
		name    string
		number  uint64
		rewound bool
		want    uint64
	}{
		{"a lower head changes nothing", 5, false, 11},
		{"a higher head raises the pool's", 14, false, 14},
		{"a rewind below the mark lowers it to the members' best", 9, true, 11},
		{"a rewind above the mark changes nothing", 12, true, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.PeerHead(tc.number, common.Hash{1}, tc.rewound)
			if got := p.Head(); got != tc.want {
				t.Errorf("head %d, want %d", got, tc.want)
			}
		})
	}
	p.PeerHead(12, common.Hash{1}, false)
	a.set(forkBlock{12, 0, 0})
	answeredBy(t, p) // waits for a to reach the fleet's head, polled at once
}

// TestPoolSharesAHeadBeforeGivingIt: heads are polled once an hour; a
// member answers a receipt in a block above the chain's head: its head is
// read again (the chain follows it), and the sharer is told of the new
// head before the answer is given — a client moving to another replica
// right after never gets a lower head.
func TestPoolSharesAHeadBeforeGivingIt(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startPool(t, upstream.PoolConfig{
		HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval:    time.Hour, LagMemory: time.Hour, HeadWait: time.Hour,
	}, forkMembers(t, a)...)
	var m moves
	p.ShareHeads(&m)
	p.Head() // the first head given: 10
	a.set(forkBlock{11, 0, 0})
	if h, _ := receiptFrom(t, p); h != hashOf(11, 0) {
		t.Fatalf("a receipt in %s, want block 11", h)
	}
	if got := m.last(); got != "rose 1" {
		t.Errorf("the last head move shared before the answer: %q (%v), want the rise to 11", got, m.list)
	}
}

// TestPoolPollsAtOnceForAPeerHeadOnAnotherBranch: heads are polled once
// an hour; the member moves to an equal fork, and another replica
// publishes that fork's head as a rewind: the member is polled at once
// and the chain follows it.
func TestPoolPollsAtOnceForAPeerHeadOnAnotherBranch(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startPool(t, upstream.PoolConfig{
		HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval:    time.Hour, LagMemory: time.Hour, HeadWait: time.Hour,
	}, forkMembers(t, a)...)
	testenv.WaitFor(t, 10*time.Second, "the chain at 10", func() bool { return p.Head() == 10 })
	a.set(forkBlock{10, 1, 0})
	testenv.WaitFor(t, 10*time.Second, "the chain to follow the fork the peer gave", func() bool {
		// (given again until then: the head trackers may not wait yet)
		p.PeerHead(10, common.HexToHash(hashOf(10, 1)), true)
		h, ok := p.Canonical(10)
		return ok && h.Hex() == hashOf(10, 1)
	})
}
