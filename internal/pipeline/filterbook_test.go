package pipeline

import (
	"testing"
	"time"
)

func TestFilterBook(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	b := newFilterBook()
	b.now = func() time.Time { return now }
	ref := func(i int) filterRef {
		return filterRef{network: "mainnet", id: string(rune('a'+i%26)) + string(rune('a'+i/26))}
	}

	t.Run("bounded per key", func(t *testing.T) {
		for i := range maxFiltersPerKey {
			if !b.reserve("k1", 10) {
				t.Fatalf("filter %d refused", i)
			}
			b.add(ref(i), "k1", logFilter, make([]byte, 10))
		}
		if b.reserve("k1", 0) {
			t.Fatal("one filter over the bound was admitted")
		}
		if !b.reserve("k2", 0) {
			t.Fatal("another key is refused because of k1")
		}
		b.release("k2", 0)
	})
	t.Run("owner only", func(t *testing.T) {
		if _, ok := b.lookup(ref(3), "k2"); ok {
			t.Fatal("k2 sees k1's filter")
		}
		if f, ok := b.lookup(ref(3), "k1"); !ok || f.kind != logFilter {
			t.Fatal("k1 lost its filter")
		}
	})
	t.Run("uninstall frees room", func(t *testing.T) {
		b.remove(ref(3))
		if !b.reserve("k1", 0) {
			t.Fatal("no room after an uninstall")
		}
		b.add(ref(3), "k1", blockFilter, nil)
	})
	t.Run("expires without a poll, a poll keeps it", func(t *testing.T) {
		now = now.Add(filterTTL - time.Second)
		b.touch(ref(5))
		now = now.Add(2 * time.Second)
		if _, ok := b.lookup(ref(4), "k1"); ok {
			t.Fatal("a filter outlived its timeout")
		}
		if _, ok := b.lookup(ref(5), "k1"); !ok {
			t.Fatal("a polled filter expired")
		}
		// The other expired filters are swept when the key installs one.
		if !b.reserve("k1", 0) {
			t.Fatal("expired filters still count")
		}
		if n := b.size(); n != 1 {
			t.Fatalf("%d filters kept, want the polled one", n)
		}
	})
	t.Run("bytes bounded per key", func(t *testing.T) {
		if !b.reserve("k3", maxFilterBytesPerKey) {
			t.Fatal("a filter of the whole budget refused")
		}
		if b.reserve("k3", 1) {
			t.Fatal("a byte over the budget admitted")
		}
	})
}
