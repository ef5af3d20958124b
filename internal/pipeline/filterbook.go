package pipeline

import (
	"sync"
	"time"
)

// Bounds of the filters one key may hold at a time (see docs/limits.md).
const (
	// maxFiltersPerKey bounds a key's installed filters.
	maxFiltersPerKey = 256
	// maxFilterBytesPerKey bounds the bytes of the filter objects a key's
	// log filters keep at the gateway.
	maxFilterBytesPerKey = 8 << 20
	// filterTTL is how long a filter lives after its creation or its last
	// eth_getFilterChanges: go-ethereum's filter timeout. The node removes
	// its own filter a little later (its sweep runs every timeout), so the
	// gateway never serves a filter the node has already dropped for age.
	filterTTL = 5 * time.Minute
)

// filterKind is what a filter watches.
type filterKind uint8

const (
	logFilter filterKind = iota + 1
	blockFilter
	pendingTxFilter
)

// filterRef names a filter: the id its node gave, on its network.
type filterRef struct{ network, id string }

// filterEntry is what the gateway keeps of one filter.
type filterEntry struct {
	owner string
	kind  filterKind
	// crit is a log filter's object as the client sent it.
	crit    []byte
	expires time.Time
}

// keyFilters is one key's share of the book.
type keyFilters struct {
	refs  map[filterRef]struct{}
	count int // installed plus reserved
	bytes int
}

// filterBook records every filter installed through the gateway, with the
// key that owns it, so that only that key uses it and log filters are held
// to eth_getLogs's limits. It is bounded per key and forgets filters as
// the node does, after filterTTL without a poll.
type filterBook struct {
	mu        sync.Mutex
	now       func() time.Time
	entries   map[filterRef]*filterEntry
	keys      map[string]*keyFilters
	lastSweep time.Time
}

func newFilterBook() *filterBook {
	return &filterBook{now: time.Now, entries: make(map[filterRef]*filterEntry), keys: make(map[string]*keyFilters)}
}

// reserve takes room for one filter of size bytes for owner; false when the
// key holds as many filters as it may. A reservation ends with add or release.
func (b *filterBook) reserve(owner string, size int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.sweepAll(now)
	if k := b.keys[owner]; k != nil {
		b.sweepKey(k, now) // may drop the key's share when it empties
	}
	k := b.keys[owner]
	if k == nil {
		k = &keyFilters{refs: make(map[filterRef]struct{})}
		b.keys[owner] = k
	}
	if k.count >= maxFiltersPerKey || k.bytes+size > maxFilterBytesPerKey {
		b.dropIfEmpty(owner, k)
		return false
	}
	k.count++
	k.bytes += size
	return true
}

// release gives back a reservation whose filter was not installed.
func (b *filterBook) release(owner string, size int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k := b.keys[owner]; k != nil {
		k.count--
		k.bytes -= size
		b.dropIfEmpty(owner, k)
	}
}

// add turns owner's reservation into the filter the node installed.
func (b *filterBook) add(ref filterRef, owner string, kind filterKind, crit []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.keys[owner]
	if k == nil { // not reachable: the reservation holds the entry
		return
	}
	if old, ok := b.entries[ref]; ok {
		// A node reusing a live id: the old record is gone on the node too.
		b.removeLocked(ref, old)
	}
	b.entries[ref] = &filterEntry{owner: owner, kind: kind, crit: crit, expires: b.now().Add(filterTTL)}
	k.refs[ref] = struct{}{}
}

// lookup returns owner's filter; false when it is unknown, expired or
// another key's.
func (b *filterBook) lookup(ref filterRef, owner string) (filterEntry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[ref]
	if !ok || e.owner != owner {
		return filterEntry{}, false
	}
	if !b.now().Before(e.expires) {
		b.removeLocked(ref, e)
		return filterEntry{}, false
	}
	return *e, true
}

// touch restarts a filter's life, as a poll does on the node.
func (b *filterBook) touch(ref filterRef) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.entries[ref]; ok {
		e.expires = b.now().Add(filterTTL)
	}
}

// remove forgets a filter (uninstalled, or unknown to its node).
func (b *filterBook) remove(ref filterRef) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.entries[ref]; ok {
		b.removeLocked(ref, e)
	}
}

func (b *filterBook) removeLocked(ref filterRef, e *filterEntry) {
	delete(b.entries, ref)
	if k := b.keys[e.owner]; k != nil {
		delete(k.refs, ref)
		k.count--
		k.bytes -= len(e.crit)
		b.dropIfEmpty(e.owner, k)
	}
}

func (b *filterBook) dropIfEmpty(owner string, k *keyFilters) {
	if k.count <= 0 {
		delete(b.keys, owner)
	}
}

// sweepKey forgets a key's expired filters.
func (b *filterBook) sweepKey(k *keyFilters, now time.Time) {
	for ref := range k.refs {
		if e := b.entries[ref]; e != nil && !now.Before(e.expires) {
			b.removeLocked(ref, e)
		}
	}
}

// sweepAll forgets every expired filter, at most once per filterTTL, so
// that the filters of keys that never come back do not stay for ever.
func (b *filterBook) sweepAll(now time.Time) {
	if now.Sub(b.lastSweep) < filterTTL {
		return
	}
	b.lastSweep = now
	for ref, e := range b.entries {
		if !now.Before(e.expires) {
			b.removeLocked(ref, e)
		}
	}
}

// size is the number of filters recorded, for tests.
func (b *filterBook) size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.entries)
}
