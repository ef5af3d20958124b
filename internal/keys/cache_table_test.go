package keys

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"testing"
)

// tableOf is a cache (without a store) holding n active keys, and their
// records.
func tableOf(tb testing.TB, n int) (*Cache, []Record) {
	tb.Helper()
	c, err := NewCache(context.Background(), nil, testPlans(), planCore, nil, CacheOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	recs := make([]Record, n)
	for i := range recs {
		h := HashOf(fmt.Sprintf("%032x", i))
		recs[i] = Record{ID: IDOf(h), Name: "k", Plan: planCore, Status: StatusActive, Hash: h}
	}
	c.publish(recs)
	return c, recs
}

// allocatedBy is the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestOneKeyChangeCostsTheSameAtAnySize: a key revoked (or changed) in a
// table of 100,000 active keys costs what it costs in a table of 1,000 —
// the shards it is in are copied, not the table — and the snapshot is
// right after it: the revoked key is gone, the others still found.
func TestOneKeyChangeCostsTheSameAtAnySize(t *testing.T) {
	const limit = 96 << 10 // the shard arrays (16 KiB) and two shards' copies
	cases := []struct {
		name string
		keys int
	}{
		{"1,000 keys", 1_000},
		{"100,000 keys", 100_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, recs := tableOf(t, tc.keys)
			gone := recs[tc.keys/2]
			gone.Status = StatusRevoked
			changed := recs[tc.keys/3]
			changed.Name = "renamed"
			bytes := allocatedBy(func() { c.publishChanged([]string{gone.ID, changed.ID}, []Record{gone, changed}) })
			if bytes > limit {
				t.Fatalf("two keys changed among %d allocated %d bytes, want at most %d whatever the table's size", tc.keys, bytes, limit)
			}
			if _, ok := c.ByID(gone.ID); ok || c.Len() != tc.keys-1 {
				t.Fatalf("revoked key still served (%d keys, want %d)", c.Len(), tc.keys-1)
			}
			if k, ok := c.ByID(changed.ID); !ok || k.Name != "renamed" {
				t.Fatalf("changed key: %+v %v", k, ok)
			}
			if _, ok := c.find(recs[0].Hash); !ok {
				t.Fatal("an unchanged key is not found by its hash")
			}
		})
	}
}

// BenchmarkOneKeyChange is one key revoked in a table of 100,000 active
// keys: "whole maps" is how the change was published before (both maps
// copied whole), "shards" how it is now; run both in one invocation to
// compare them on the same machine.
func BenchmarkOneKeyChange(b *testing.B) {
	const n = 100_000
	b.Run("whole maps", func(b *testing.B) {
		c, recs := tableOf(b, n)
		byHash, byID := map[Hash]*Key{}, map[string]*Key{}
		c.snap.Load().keys.each(func(id string, k *Key) { byHash[k.hash], byID[id] = k, k })
		gone := recs[n/2]
		b.ReportAllocs()
		for b.Loop() {
			h, i := maps.Clone(byHash), maps.Clone(byID)
			delete(h, gone.Hash)
			delete(i, gone.ID)
		}
	})
	b.Run("shards", func(b *testing.B) {
		c, recs := tableOf(b, n)
		gone := recs[n/2]
		gone.Status = StatusRevoked
		back := recs[n/2]
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%2 == 0 {
				c.publishChanged([]string{gone.ID}, []Record{gone})
			} else {
				c.publishChanged([]string{back.ID}, []Record{back})
			}
		}
	})
}
