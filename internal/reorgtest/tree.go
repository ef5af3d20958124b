package reorgtest

import (
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Tree is every block the builder made, with its branch: the truth the
// clients judge answers by. A block's generation is the number of forks
// made before it; the builder never goes back to a block it abandoned, so
// a client given a block of generation g can never again be rightly
// given a block abandoned by fork g or an earlier one.
type Tree struct {
	mu     sync.RWMutex
	blocks map[common.Hash]*node
	canon  map[uint64]common.Hash // the builder's canonical chain
	tip    common.Hash
}

// node is one block of the tree.
type node struct {
	number      uint64
	parent      common.Hash
	gen         int
	abandonedBy int           // the fork that abandoned it (0: never)
	txs         []common.Hash // its transactions, in order
	logs        []LogID       // its logs
	// made and left: when the builder made it and when a fork abandoned
	// it (zero: never), for a trace (trace.go).
	made, left time.Time
}

// LogID names one log: the block that holds it and its index there.
type LogID struct {
	Block common.Hash
	Index uint64
}

func newTree() *Tree {
	return &Tree{blocks: map[common.Hash]*node{}, canon: map[uint64]common.Hash{}}
}

// add records a new canonical head of generation gen.
func (t *Tree) add(hash, parent common.Hash, number uint64, gen int, txs []common.Hash, logs []LogID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.blocks[hash]; !ok {
		t.blocks[hash] = &node{number: number, parent: parent, gen: gen, txs: txs, logs: logs, made: time.Now()}
	}
	t.setHead(hash)
}

// setHead makes hash (known) the canonical head: heights above it leave
// the canonical chain.
func (t *Tree) setHead(hash common.Hash) {
	n := t.blocks[hash]
	for h := n.number + 1; ; h++ {
		if _, ok := t.canon[h]; !ok {
			break
		}
		delete(t.canon, h)
	}
	for cur := hash; ; {
		b, ok := t.blocks[cur]
		if !ok || t.canon[b.number] == cur {
			break
		}
		t.canon[b.number] = cur
		cur = b.parent
	}
	t.tip = hash
}

// abandon marks the canonical blocks above number as abandoned by fork
// gen and makes the block at number the head.
func (t *Tree) abandon(number uint64, gen int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for h := number + 1; ; h++ {
		hash, ok := t.canon[h]
		if !ok {
			break
		}
		t.blocks[hash].abandonedBy = gen
		t.blocks[hash].left = time.Now()
	}
	t.setHead(t.canon[number])
}

// Verdict is what the tree knows of a block.
type Verdict struct {
	Known       bool
	Number      uint64
	Gen         int
	AbandonedBy int // 0: not abandoned
}

// Of is the tree's verdict on hash.
func (t *Tree) Of(hash common.Hash) Verdict {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, ok := t.blocks[hash]
	if !ok {
		return Verdict{}
	}
	return Verdict{Known: true, Number: n.number, Gen: n.gen, AbandonedBy: n.abandonedBy}
}

// Ancestor reports whether a is b or one of b's ancestors.
func (t *Tree) Ancestor(a, b common.Hash) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	na, ok := t.blocks[a]
	if !ok {
		return false
	}
	for cur := b; ; {
		n, ok := t.blocks[cur]
		if !ok || n.number < na.number {
			return false
		}
		if cur == a {
			return true
		}
		cur = n.parent
	}
}

// Canonical is the builder's canonical block at number.
func (t *Tree) Canonical(number uint64) (common.Hash, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	h, ok := t.canon[number]
	return h, ok
}

// Tip is the builder's canonical head.
func (t *Tree) Tip() (common.Hash, uint64) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.tip, t.blocks[t.tip].number
}

// Txs are the transactions of block hash.
func (t *Tree) Txs(hash common.Hash) []common.Hash {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if n, ok := t.blocks[hash]; ok {
		return n.txs
	}
	return nil
}

// CanonicalLogs are the logs of the canonical blocks above number.
func (t *Tree) CanonicalLogs(above uint64) map[LogID]bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := map[LogID]bool{}
	for h, hash := range t.canon {
		if h > above {
			for _, l := range t.blocks[hash].logs {
				out[l] = true
			}
		}
	}
	return out
}

// Describe is the tree's account of hash for a trace: its number and
// generation, when it was made and when it was abandoned, relative to at.
func (t *Tree) Describe(hash common.Hash, at time.Time) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n, ok := t.blocks[hash]
	if !ok {
		return hash.Hex()[:10] + " (no node made it)"
	}
	left := "never"
	if !n.left.IsZero() {
		left = n.left.Sub(at).Round(10 * time.Microsecond).String()
	}
	return fmt.Sprintf("%s #%d gen %d, made %s, abandoned %s", hash.Hex()[:10], n.number, n.gen,
		n.made.Sub(at).Round(10*time.Microsecond), left)
}
