package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// moves records the head moves a pool shares, and when it waited for
// them to be published.
type moves struct {
	mu   sync.Mutex
	list []string
	// published holds len(list) at each Published call that found moves
	// not yet published (a wait; a call finding none returns at once, as
	// fleethead's does); sent is how many were published.
	published []int
	sent      int
}

func (m *moves) Published(context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.list) > m.sent {
		m.published = append(m.published, len(m.list))
		m.sent = len(m.list)
	}
}

// waits is how many times the pool waited for its moves to be published.
func (m *moves) waits() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.published)
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
	// The call that moved the head waited for the move to be published
	// before it answered; calls that moved nothing do not wait.
	if w := m.waits(); w == 0 || m.published[w-1] != len(m.list) {
		t.Errorf("waits for the moves to be published %v (moves %v): want one after the rise to 11, before the answer", m.published, m.list)
	}
	before := m.waits()
	for range 20 {
		receiptFrom(t, p)
	}
	if got := m.waits(); got != before {
		t.Errorf("%d waits for publishing in 20 calls that moved no head, want 0", got-before)
	}
}

// TestPoolAnswersOnceAnEarlierMoveIsPublished: the head moved before a
// call started and is not published yet (the publisher's round trip is
// under way): the call waits for it too before it answers — the block it
// gives may be the new head's, which another replica must hold before
// the client can ask it.
func TestPoolAnswersOnceAnEarlierMoveIsPublished(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startForkPool(t, a)
	var m moves
	p.ShareHeads(&m)
	p.Head() // the first head given: 10, handed to the sharer, not published
	if w := m.waits(); w != 0 {
		t.Fatalf("%d waits before any call", w)
	}
	answeredBy(t, p)
	if w := m.waits(); w != 1 || m.published[0] != 1 {
		t.Fatalf("waits for publishing %v after a call that started once the head had moved, want one, after the move", m.published)
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

// TestEpochMovesWithTheChain: the pool's epoch (what coalesced calls are
// keyed by beside the head's number) moves when the chain reorganises to
// an equal fork and when another replica gives a head the chain does not
// hold, and not for a head it holds.
func TestEpochMovesWithTheChain(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	p := startPool(t, upstream.PoolConfig{
		HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval:    10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour,
	}, forkMembers(t, a)...)
	testenv.WaitFor(t, 10*time.Second, "the chain at 10", func() bool { return p.Head() == 10 })
	e := p.Epoch()
	p.PeerHead(10, common.HexToHash(hashOf(10, 0)), false)
	if got := p.Epoch(); got != e {
		t.Fatalf("a peer's head the chain holds moved the epoch: %d to %d", e, got)
	}
	p.PeerHead(11, common.HexToHash(hashOf(11, 0)), false)
	if got := p.Epoch(); got == e {
		t.Fatal("a peer's head the chain does not hold left the epoch as it was")
	}
	e = p.Epoch()
	a.set(forkBlock{10, 1, 0}) // an equal fork: block 10 is another block
	testenv.WaitFor(t, 10*time.Second, "the chain on fork 1", func() bool {
		h, ok := p.Canonical(10)
		return ok && h.Hex() == hashOf(10, 1)
	})
	if got := p.Epoch(); got == e {
		t.Fatal("the chain reorganised to an equal fork and the epoch stayed as it was")
	}
}

// TestPoolGivesTheBlockAPeerGave: b is the head member, at block 10 of
// fork 0; a moves to block 10 of fork 1 and is read there (on another
// branch than the head member: not followed, not chosen). Another replica
// gives a client fork 1's block 10 and publishes it: from then on this
// pool answers block 10 (by number, and as "latest") with fork 1's block —
// the chain follows a, the member on the block the peer gave — never with
// b's, whichever member is asked first.
func TestPoolGivesTheBlockAPeerGave(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{9, 0, 0})
	b := newForkNode(t, "b", forkBlock{10, 0, 0})
	p := startForkPool(t, a, b) // b's 10 is the first head above a's 9: b is the head member
	a.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "a at 10", func() bool { return p.Members()[0].Head() == 10 })
	a.set(forkBlock{10, 1, 0})
	testenv.WaitFor(t, 10*time.Second, "a read on fork 1 and left out", func() bool {
		for range 20 {
			if answeredBy(t, p) != "b" {
				return false
			}
		}
		return true
	})
	if h, _ := p.Canonical(10); h.Hex() != hashOf(10, 0) {
		t.Fatalf("canonical 10 is %s before the peer's head, want fork 0's", h.Hex())
	}
	p.PeerHead(10, common.HexToHash(hashOf(10, 1)), true)
	for i := range 20 {
		for _, params := range []string{`["0xa",false]`, `["latest",false]`} {
			resp := send(t, p, "eth_getBlockByNumber", params, true)
			var blk struct{ Hash string }
			if err := json.Unmarshal(resp.Result, &blk); err != nil || resp.Err != nil {
				t.Fatalf("block %s: %s %v %v", params, resp.Result, resp.Err, err)
			}
			if blk.Hash != hashOf(10, 1) {
				t.Fatalf("call %d, block %s: %s, want fork 1's block 10 (the peer's)", i, params, blk.Hash)
			}
		}
	}
	if h, _ := p.Canonical(10); h.Hex() != hashOf(10, 1) {
		t.Errorf("canonical 10 is %s, want fork 1's", h.Hex())
	}
}

// TestPoolWaitsOnAClaimForTheBlocksBelowIt: members a and b at block 11;
// a moves to a fork of the same height whose block 10 is another, and
// answers its blocks 200 ms late; another replica's head 11 on that fork
// comes (a claim: the pool's head stays 11). A call naming block 10, and
// an answer naming b's block 10, wait for the members' heads asked since
// the claim: then b is on another branch, and a answers every one.
func TestPoolWaitsOnAClaimForTheBlocksBelowIt(t *testing.T) {
	for _, tc := range []struct {
		name, method, params string
		// who reads who answered from the answer.
		who func(result json.RawMessage) (string, error)
	}{
		{name: "a call naming block 10 by number", method: "eth_getBalance",
			params: `["0x0000000000000000000000000000000000000001","0xa"]`,
			who: func(r json.RawMessage) (who string, err error) {
				err = json.Unmarshal(r, &who)
				return who, err
			}},
		{name: "an answer naming block 10", method: "eth_getTransactionReceipt",
			params: `["0x11"]`,
			who: func(r json.RawMessage) (string, error) {
				var rc struct{ From string }
				err := json.Unmarshal(r, &rc)
				return rc.From, err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newForkNode(t, "a", forkBlock{9, 0, 0})
			b := newForkNode(t, "b", forkBlock{9, 0, 0})
			// Heads polled every second: the wait below a claim is one at most.
			p := startPool(t, upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber",
				HeadInterval: time.Second, LagMemory: time.Hour, HeadWait: time.Hour}, forkMembers(t, a, b)...)
			for _, n := range []uint64{9, 10, 11} { // the chain holds 9 to 11
				a.set(forkBlock{n, 0, 0})
				b.set(forkBlock{n, 0, 0})
				testenv.WaitFor(t, 10*time.Second, fmt.Sprintf("both at %d", n), func() bool {
					return p.Members()[0].Head() == n && p.Members()[1].Head() == n
				})
			}
			a.mu.Lock()
			a.slowBlocks = 200 * time.Millisecond
			a.mu.Unlock()
			a.set(forkBlock{11, 1, 1})
			a.receiptsIn(forkBlock{10, 1, 0})
			b.receiptsIn(forkBlock{10, 0, 0})
			p.PeerHead(11, common.HexToHash(hashOf(11, 1)), false)
			rule, _ := methods.NewTable(methods.FamilyEVM).Lookup(tc.method)
			answers := make([]string, 10)
			var wg sync.WaitGroup
			for i := range answers {
				wg.Go(func() {
					resp, _, err := p.Send(context.Background(), upstream.Call{
						Body: jsonrpc.AppendRequest(nil, 1, tc.method, json.RawMessage(tc.params)),
						Rule: rule, Params: json.RawMessage(tc.params), Idempotent: true,
					})
					switch {
					case err != nil:
						answers[i] = "error " + err.Error()
					case resp.Err != nil:
						answers[i] = "error " + resp.Err.Error()
					default:
						if who, err := tc.who(resp.Result); err != nil {
							answers[i] = "unread " + string(resp.Result)
						} else {
							answers[i] = who
						}
					}
				})
			}
			wg.Wait()
			for i, who := range answers {
				if who != "a" {
					t.Errorf("call %d answered by %s, want a (on the claimed branch)", i, who)
				}
			}
			if h, _ := p.Canonical(10); h.Hex() != hashOf(10, 1) {
				t.Errorf("canonical 10 is %s, want fork 1's", h.Hex())
			}
		})
	}
}
