package upstream

import (
	"context"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
)

// One head for a fleet: replicas of nodegate in front of the same members
// tell each other the head they gave clients (internal/fleethead, through
// Redis), so that a client moving between replicas never gets a lower
// head. The pool tells its HeadSharer when its head rose (the mark a
// member must reach to serve the head, raised by heads and answers) or
// its chain went back to a shorter fork, and never waits on it, but for
// the calls that end while a move is not published yet: they answer once
// the sharer published it (awaitShared); a peer's
// head raises the mark as a head seen and then lost does (LagMemory,
// HeadWait): calls wait for a member to reach it, and the members are
// polled at once rather than at their next HeadInterval.

// HeadSharer is told of the pool's head moves; HeadMoved must not
// block. Published waits (a bounded time) until the moves handed over
// before it was called have reached the other replicas.
type HeadSharer interface {
	HeadMoved(number uint64, rewound bool)
	Published(ctx context.Context)
}

// sharer holds the pool's HeadSharer (nil: none).
type sharer struct {
	s atomic.Pointer[HeadSharer]
}

// ShareHeads makes s the pool's HeadSharer.
func (p *Pool) ShareHeads(s HeadSharer) { p.sharer.s.Store(&s) }

// headMoved tells the sharer, when there is one, of a head move.
func (p *Pool) headMoved(n uint64, rewound bool) {
	if s := p.sharer.s.Load(); s != nil {
		(*s).HeadMoved(n, rewound)
	}
}

// awaitShared waits, before a call's answer goes on, until the sharer
// published every head move handed to it so far (the answer may show the
// new head, or the block a reorg made canonical): a client sent to
// another replica next finds that replica holding the head it was just
// given. Not only the moves made during the call: a move made just before
// it may still be on its way to Redis when the call answers (a client
// was given a block of the new branch by one replica, then the abandoned
// block by the other, which had no word of the move yet). The sharer
// returns at once when nothing is pending — nearly every call — and
// waits one round trip at most.
func (p *Pool) awaitShared(ctx context.Context) {
	if s := p.sharer.s.Load(); s != nil {
		(*s).Published(ctx)
	}
}

// shareRaise, when the pool shares heads, raises the mark to a head an
// answer proved, before the answer goes on, so that the fleet learns of
// a head as it is given, not at the pool's next call.
func (p *Pool) shareRaise() {
	if p.sharer.s.Load() != nil {
		p.target()
	}
}

// PeerHead is a head another replica gave a client: its number and hash;
// rewound, its chain went back to that block (a reorg to an equal or
// shorter fork). A higher head raises the pool's mark; a rewind lowers a
// mark above it to the best head of the pool's members. A head whose
// hash the pool's canonical chain does not hold at its height (another
// replica saw a block or a fork first) is a claim (canonclaim.go): the
// members are polled at once, so that the chain follows them without
// waiting for HeadInterval, the chain follows a member on the claimed
// block, and until then an answer naming another block at that height is
// a lag answer.
func (p *Pool) PeerHead(number uint64, hash common.Hash, rewound bool) {
	if hash != (common.Hash{}) && p.cfg.HeadBlockMethod != "" {
		p.canon.mu.Lock()
		h, ok := p.canon.at(number)
		held := ok && h == hash
		p.canon.takeClaim(number, hash, rewound, p.cfg.HeadWait)
		if !held {
			p.epoch.Add(1) // no call made before it is shared after it (Epoch)
		}
		p.canon.mu.Unlock()
		if !held {
			p.poke()
		}
		p.signal() // calls waiting on a claim this head replaced look again
	}
	if rewound {
		for {
			hw := p.highWater.Load()
			if hw <= number {
				return
			}
			to := max(number, p.BestHead())
			if to >= hw || p.highWater.CompareAndSwap(hw, to) {
				p.signal()
				return
			}
		}
	}
	for {
		hw := p.highWater.Load()
		if number <= hw {
			return
		}
		if p.highWater.CompareAndSwap(hw, number) {
			p.metAt.Store(nowNano())
			if p.BestHead() < number {
				p.poke()
			}
			p.signal()
			return
		}
	}
}

// poked is closed at the next poke: the head trackers poll at once.
func (p *Pool) poked() <-chan struct{} {
	p.changeMu.Lock()
	defer p.changeMu.Unlock()
	if p.pokeCh == nil {
		p.pokeCh = make(chan struct{})
	}
	return p.pokeCh
}

// poke wakes the head trackers (a peer's head is above every member's).
func (p *Pool) poke() {
	p.changeMu.Lock()
	if p.pokeCh != nil {
		close(p.pokeCh)
		p.pokeCh = nil
	}
	p.changeMu.Unlock()
}
