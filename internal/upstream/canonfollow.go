package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Following the canonical chain (canon.go) from outside the pool: a
// follower is told, in order, which blocks joined the chain and which
// left it since it last looked, by hash. It keeps the blocks it reported
// (a window as long as the chain's) and, at each change of the pool's
// head, walks from the new head back by parent hash until it meets one of
// them: the blocks on the way (read from the window, or fetched by hash
// when the window skipped them — a head polled after two blocks) joined
// the chain, and the blocks it reported above the meeting point left it.
// So a follower never misses a block of the chain, nor repeats one, in
// whatever order members report heads, leave, come back or switch
// branches.

// CanonBlock is a block of the canonical chain.
type CanonBlock struct {
	Number       uint64
	Hash, Parent common.Hash
	// Block is the block as a node gave it, when the follower had to
	// fetch it (nil when the chain's window held it).
	Block json.RawMessage
}

// CanonEvent is a change of the canonical chain: Removed are the blocks
// that left it, Added those that joined it, each lowest first (Added's
// last is the new head). A reorganisation has both; a rewind to a block
// already reported has Removed and Again, that block, the head again (a
// node sends it again as its new head; its logs are not new).
type CanonEvent struct {
	Removed, Added []CanonBlock
	Again          CanonBlock
}

// FetchBlock reads the block with the given hash (the follower needs its
// number and parent hash; Block is kept for the caller).
type FetchBlock func(ctx context.Context, hash common.Hash) (CanonBlock, error)

// CanonView is the pool's canonical chain as seen from outside.
type CanonView struct{ p *Pool }

// Canon is the pool's canonical chain.
func (p *Pool) Canon() CanonView { return CanonView{p} }

// Tracked reports whether the pool keeps a canonical chain by hash (its
// family gives heads by hash: PoolConfig.HeadBlockMethod).
func (v CanonView) Tracked() bool { return v.p.cfg.HeadBlockMethod != "" }

// Head is the canonical head (false while none is known).
func (v CanonView) Head() (CanonBlock, bool) {
	c := v.p.canon
	c.mu.Lock()
	defer c.mu.Unlock()
	return canonBlockOf(c.head), c.has
}

func canonBlockOf(b headBlock) CanonBlock {
	return CanonBlock{Number: b.Number, Hash: b.Hash, Parent: b.Parent}
}

// maxFollowWalk bounds how many blocks one change may add: a head further
// than that from every block a follower reported restarts its window at
// the last maxFollowWalk blocks (a WARN says how many were skipped).
const maxFollowWalk = canonWindow

// Follow reports every change of the canonical chain after the head it
// has now (the first block reported is the next one), until ctx ends;
// then the channel is closed. fetch reads blocks the chain's window
// skipped. A change that cannot be read yet (fetch failed) is tried again
// at the next change of the pool's heads, or after HeadInterval.
func (v CanonView) Follow(ctx context.Context, fetch FetchBlock) <-chan CanonEvent {
	f := &follower{p: v.p, fetch: fetch}
	if h, ok := v.Head(); ok {
		f.put(h)
	}
	out := make(chan CanonEvent)
	go f.run(ctx, out)
	return out
}

// follower is one Follow: the blocks it reported, by number, from low to
// head (a window as long as the chain's).
type follower struct {
	p     *Pool
	fetch FetchBlock
	sent  [canonWindow]CanonBlock
	low   uint64
	head  uint64
	has   bool
}

func (f *follower) run(ctx context.Context, out chan<- CanonEvent) {
	defer close(out)
	for {
		changed := f.p.Changed()
		ev, err := f.next(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			slog.Debug("canonical chain: a change not read yet", "pool", f.p.id, "err", err)
		case len(ev.Removed)+len(ev.Added) > 0 || ev.Again.Hash != (common.Hash{}):
			select {
			case out <- ev:
				continue // the chain may have moved meanwhile: look again at once
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-time.After(f.p.cfg.HeadInterval):
		}
	}
}

// sentAt is the hash of the block reported at n, when the window holds it.
func (f *follower) sentAt(n uint64) (common.Hash, bool) {
	if !f.has || n < f.low || n > f.head {
		return common.Hash{}, false
	}
	b := f.sent[n%canonWindow]
	return b.Hash, b.Number == n
}

// put records b, above the head or replacing it, as the reported head.
func (f *follower) put(b CanonBlock) {
	if !f.has || b.Number > f.head+1 || b.Number < f.low {
		f.low = b.Number
	}
	b.Block = nil
	f.sent[b.Number%canonWindow] = b
	f.head, f.has = b.Number, true
	if b.Number >= canonWindow && f.low < b.Number-canonWindow+1 {
		f.low = b.Number - canonWindow + 1
	}
}

// next is the change from the blocks reported to the chain now (empty:
// none). Nothing is recorded unless the whole change could be read.
func (f *follower) next(ctx context.Context) (CanonEvent, error) {
	c := f.p.canon
	c.mu.Lock()
	if !c.has {
		c.mu.Unlock()
		return CanonEvent{}, nil
	}
	head := c.head
	window := c.slots // a copy: the walk reads it without the lock
	c.mu.Unlock()
	if !f.has {
		f.put(canonBlockOf(head))
		return CanonEvent{Added: []CanonBlock{canonBlockOf(head)}}, nil
	}
	if h, ok := f.sentAt(head.Number); ok && h == head.Hash {
		if head.Number == f.head {
			return CanonEvent{}, nil
		}
		// The chain went back to a block already reported: those above it
		// left, and it is the head again.
		ev := CanonEvent{Removed: f.above(head.Number), Again: canonBlockOf(head)}
		f.head = head.Number
		return ev, nil
	}
	path, fork, err := f.walk(ctx, canonBlockOf(head), &window)
	if err != nil {
		return CanonEvent{}, err
	}
	ev := CanonEvent{Removed: f.above(fork), Added: path}
	if fork < f.head {
		f.head = fork
	}
	for _, b := range path {
		f.put(b)
	}
	return ev, nil
}

// walk goes from head back by parent hash until the parent is a block
// reported (fork is its number), or below the blocks reported, or
// maxFollowWalk blocks were gathered. It returns the blocks gathered,
// lowest first.
func (f *follower) walk(ctx context.Context, head CanonBlock, window *[canonWindow]headBlock) ([]CanonBlock, uint64, error) {
	path := []CanonBlock{head}
	cur := head
	for cur.Number > 0 {
		n := cur.Number - 1
		if h, ok := f.sentAt(n); ok && h == cur.Parent {
			break // met a block reported
		}
		if n < f.low {
			break // below what was reported: nothing lower left the chain for this follower
		}
		if len(path) >= maxFollowWalk {
			slog.Warn("canonical chain: a change longer than the window; older blocks not reported", "pool", f.p.id, "from", f.head, "to", head.Number, "reported", len(path))
			break
		}
		parent, err := f.parent(ctx, cur, window)
		if err != nil {
			return nil, 0, err
		}
		path = append(path, parent)
		cur = parent
	}
	slices.Reverse(path)
	if path[0].Number == 0 {
		return path, 0, nil // from genesis: every block reported left, none is its parent
	}
	return path, path[0].Number - 1, nil
}

// parent is b's parent: from the chain's window when it holds it, else
// fetched by hash.
func (f *follower) parent(ctx context.Context, b CanonBlock, window *[canonWindow]headBlock) (CanonBlock, error) {
	n := b.Number - 1
	if s := window[n%canonWindow]; s.Number == n && s.Hash == b.Parent {
		return canonBlockOf(s), nil
	}
	p, err := f.fetch(ctx, b.Parent)
	if err != nil {
		return CanonBlock{}, fmt.Errorf("block %s (parent of %d): %w", b.Parent.Hex(), b.Number, err)
	}
	if p.Number != n || p.Hash != b.Parent {
		return CanonBlock{}, fmt.Errorf("block %s (parent of %d): the answer is block %d %s", b.Parent.Hex(), b.Number, p.Number, p.Hash.Hex())
	}
	return p, nil
}

// above is the reported blocks above n, lowest first.
func (f *follower) above(n uint64) []CanonBlock {
	var out []CanonBlock
	for m := max(n+1, f.low); f.has && m <= f.head; m++ {
		if b := f.sent[m%canonWindow]; b.Number == m {
			out = append(out, b)
		}
	}
	return out
}
