package cache

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
)

// chainOf is a canonical chain holding heights from..to, each with hash
// {fork, n}.
type chainOf struct {
	from, to uint64
	fork     byte
}

func (c chainOf) Canonical(n uint64) (common.Hash, bool) {
	if n < c.from || n > c.to {
		return common.Hash{}, false
	}
	return hashAt(n, c.fork), true
}

func hashAt(n uint64, fork byte) common.Hash { return common.Hash{0: fork, 31: byte(n)} }

// cacheBoth is a cache in memory only, and one with Redis as its second
// level, for tests that hold for both.
func cacheBoth(t *testing.T) map[string]func(t *testing.T) *Cache {
	return map[string]func(t *testing.T) *Cache{
		"memory": func(t *testing.T) *Cache { return newTestCache(t, Options{}) },
		"redis": func(t *testing.T) *Cache {
			rc := redistest.Require(t)
			return newTestCache(t, Options{Redis: rc, RedisPrefix: redistest.Prefix(t, rc) + ":", RedisTimeout: time.Second})
		},
	}
}

func newTestCache(t *testing.T, o Options) *Cache {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// forget empties the memory level, so that the next read is Redis's.
func forget(c *Cache) { c.mem.InvalidateAll() }

// TestCacheServesOnlyCanonicalEntries: an entry carries its block's hash;
// once the canonical chain holds that height with another hash, the entry
// is dropped (memory and Redis), never served.
func TestCacheServesOnlyCanonicalEntries(t *testing.T) {
	for name, mk := range cacheBoth(t) {
		t.Run(name, func(t *testing.T) {
			c := mk(t)
			ctx := context.Background()
			key := Key(nil, "1/0x01", "eth_getTransactionReceipt", []byte(`["0x11"]`))
			c.Set(ctx, key, Block{Number: 9, Hash: hashAt(9, 0)}, []byte(`{"blockNumber":"0x9"}`))
			if v, ok := c.Get(ctx, key, chainOf{1, 10, 0}); !ok || string(v) != `{"blockNumber":"0x9"}` {
				t.Fatalf("on the chain: %q %v", v, ok)
			}
			forget(c)
			if v, ok := c.Get(ctx, key, chainOf{1, 10, 1}); ok {
				t.Fatalf("block 9 of fork 0 served when fork 1 is the chain: %q", v)
			}
			if v, ok := c.Get(ctx, key, nil); ok {
				t.Fatalf("an entry off the chain is still kept: %q", v)
			}
		})
	}
}

// TestCacheDropFrom: a reorg drops every entry about the heights it left,
// in memory and Redis, and keeps those below.
func TestCacheDropFrom(t *testing.T) {
	for name, mk := range cacheBoth(t) {
		t.Run(name, func(t *testing.T) {
			c := mk(t)
			ctx := context.Background()
			keys := map[uint64][]byte{}
			for _, n := range []uint64{5, 9, 12, 13} {
				keys[n] = Key(nil, "1/0x01", "eth_getBlockByNumber", []byte{'[', byte('0' + n%10), ']'})
				c.Set(ctx, keys[n], Block{Number: n}, []byte(`{"n":1}`))
			}
			c.DropFrom(ctx, 9, 12)
			levels := []string{"memory"}
			if c.opts.Redis != nil {
				levels = append(levels, "redis")
			}
			for _, level := range levels {
				if level == "redis" {
					forget(c)
				}
				for n, want := range map[uint64]bool{5: true, 9: false, 12: false, 13: true} {
					if _, ok := c.Get(ctx, keys[n], nil); ok != want {
						t.Errorf("%s: entry about %d kept %v, want %v", level, n, ok, want)
					}
				}
			}
		})
	}
}

func TestEntryHeader(t *testing.T) {
	b := Block{Number: 1<<40 + 3, Hash: hashAt(3, 7)}
	got, answer, ok := decodeEntry(encodeEntry(b, []byte(`"x"`)))
	if !ok || got != b || string(answer) != `"x"` {
		t.Fatalf("decoded %v %q %v", got, answer, ok)
	}
	if _, _, ok := decodeEntry([]byte(`{"number":"0x1"}`)); ok {
		t.Fatal("a value without the header is read as an entry")
	}
}

// FuzzDecodeEntry: any stored value decodes without a panic, and a value
// that decodes is the header of its block followed by its answer.
func FuzzDecodeEntry(f *testing.F) {
	f.Add(encodeEntry(Block{Number: 9, Hash: hashAt(9, 1)}, []byte(`{"a":1}`)))
	f.Add([]byte(`{"number":"0x1"}`))
	f.Add([]byte{entryMark})
	f.Fuzz(func(t *testing.T, v []byte) {
		b, answer, ok := decodeEntry(v)
		if !ok {
			return
		}
		if again := encodeEntry(b, answer); string(again) != string(v) {
			t.Errorf("%x decodes to %v %q, which encodes to %x", v, b, answer, again)
		}
	})
}
