package cache

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
)

// admission decides which final answers are worth keeping. While the
// cache's lookups find what they look for, every answer fetched is kept.
// When they stop finding it — traffic of keys asked once, such as an
// indexer's sweep or a wallet's own receipts — keeping each answer only
// costs a copy, an insertion and an eviction, and pushes out entries that
// are asked again; then an answer is kept the second time its key misses
// while the key is still remembered (the "doorkeeper" of TinyLFU): one
// fingerprint per slot, a newer key hashed to the same slot taking it over.
//
// The choice is made again after every admissionWindow lookups: the
// doorkeeper guards the next window when fewer than one lookup in
// admissionMinHitShare of the last one was a hit.
type admission struct {
	seed  maphash.Seed
	mask  uint64
	slots []atomic.Uint64 // a missed key's fingerprint, 0 for none

	lookups, hits atomic.Uint64 // of the current window
	guarded       atomic.Bool   // the doorkeeper is on
}

const (
	admissionWindow      = 1024
	admissionMinHitShare = 16
)

// admissionBytesPerSlot sizes the doorkeeper from the cache's budget: about
// one slot per kilobyte of budget, the size of a typical answer, so that a
// key is remembered about as long as an entry of its size would live.
const admissionBytesPerSlot = 1 << 10

func newAdmission(maxBytes int64) *admission {
	n := uint64(max(maxBytes/admissionBytesPerSlot, 1<<10))
	n = min(uint64(1)<<bits.Len64(n-1), 1<<22) // a power of two, at most 32 MB of slots
	return &admission{seed: maphash.MakeSeed(), mask: n - 1, slots: make([]atomic.Uint64, n)}
}

// lookedUp counts one lookup of the cache, and at the end of a window
// decides whether the doorkeeper guards the next.
func (a *admission) lookedUp(hit bool) {
	if hit {
		a.hits.Add(1)
	}
	if a.lookups.Add(1)%admissionWindow == 0 {
		hits := a.hits.Swap(0)
		a.guarded.Store(hits*admissionMinHitShare < admissionWindow)
	}
}

// admit reports whether an answer fetched for key is kept: always while
// the doorkeeper is off; else when key missed before and is still
// remembered, and otherwise it remembers key.
func (a *admission) admit(key []byte) bool {
	if !a.guarded.Load() {
		return true
	}
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
