package cache

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
)

// admission decides which final answers are worth keeping. Most keys of a
// gateway's traffic are asked once (a wallet's own receipts, an indexer's
// sweep over blocks): keeping each of them costs a copy, an insertion and
// an eviction, and pushes out entries that are asked again. So an answer is
// kept the second time its key misses while the key is still remembered
// here (the "doorkeeper" of TinyLFU): one fingerprint per slot, a newer key
// hashed to the same slot taking it over.
type admission struct {
	seed  maphash.Seed
	mask  uint64
	slots []atomic.Uint64 // a missed key's fingerprint, 0 for none
}

// admissionBytesPerSlot sizes the doorkeeper from the cache's budget: about
// one slot per kilobyte of budget, the size of a typical answer, so that a
// key is remembered about as long as an entry of its size would live.
const admissionBytesPerSlot = 1 << 10

func newAdmission(maxBytes int64) *admission {
	n := uint64(max(maxBytes/admissionBytesPerSlot, 1<<10))
	n = min(uint64(1)<<bits.Len64(n-1), 1<<22) // a power of two, at most 32 MB of slots
	return &admission{seed: maphash.MakeSeed(), mask: n - 1, slots: make([]atomic.Uint64, n)}
}

// admit reports whether key has missed before and is still remembered;
// otherwise it remembers key, and the answer is not kept this time.
func (a *admission) admit(key []byte) bool {
	h := maphash.Bytes(a.seed, key)
	fp := h | 1 // never 0, the empty slot
	slot := &a.slots[h&a.mask]
	if slot.Load() == fp {
		slot.Store(0)
		return true
	}
	slot.Store(fp)
	return false
}
