package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/maypok86/otter/v2"
	"github.com/redis/go-redis/v9"

	"github.com/nodegate/nodegate/internal/methods"
)

// DefaultMaxBytes is the in-memory budget when none is configured.
const DefaultMaxBytes = 64 << 20

// Options configure one network's cache.
type Options struct {
	// MaxBytes bounds the memory the entries take (keys and answers).
	MaxBytes int64
	// Table is the network's method table: the rules of the methods the
	// cache can keep (methods.Rule.Cacheable; nil: none).
	Table *methods.Table
	// Methods limits caching to these methods (nil: every method of Table
	// the cache can keep).
	Methods []string
	// Redis, when set, is a shared second level: answers found there are
	// kept in memory too; answers stored are written to both.
	Redis *redis.Client
	// RedisPrefix namespaces the keys in Redis.
	RedisPrefix string
	// RedisTimeout bounds one Redis round trip (default 50ms); a slow or
	// absent Redis is a miss, never an error for the client.
	RedisTimeout time.Duration
	// RedisTTL is how long an entry lives in Redis (default 24h).
	RedisTTL time.Duration
	// Stats, when set, is told about hits, misses and the bytes held.
	Stats Stats
}

// Stats receives the cache's counts (see telemetry.CacheMetrics).
type Stats interface {
	Hit()
	Miss()
	Bytes(n uint64)
}

// Cache is one network's cache of final answers.
type Cache struct {
	mem     *otter.Cache[string, []byte]
	admit   *admission // admit.go: which fetched answers are kept
	methods map[string]bool
	opts    Options
}

// New makes a cache.
func New(opts Options) (*Cache, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.RedisTimeout <= 0 {
		opts.RedisTimeout = 50 * time.Millisecond
	}
	if opts.RedisTTL <= 0 {
		opts.RedisTTL = 24 * time.Hour
	}
	mem, err := otter.New(&otter.Options[string, []byte]{
		MaximumWeight: uint64(opts.MaxBytes),
		Weigher: func(k string, v []byte) uint32 {
			return uint32(min(len(k)+len(v)+64, math.MaxUint32)) // 64: the entry's own bookkeeping, roughly
		},
	})
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	c := &Cache{mem: mem, admit: newAdmission(opts.MaxBytes), opts: opts, methods: map[string]bool{}}
	list := opts.Methods
	if list == nil && opts.Table != nil {
		list = Methods(opts.Table)
	}
	for _, m := range list {
		if opts.Table == nil || !Known(opts.Table, m) {
			return nil, fmt.Errorf("cache: method %q cannot be cached (cacheable: eth_getTransactionByHash, eth_getLogs, …; see docs/cache.md)", m)
		}
		c.methods[m] = true
	}
	return c, nil
}

// Caches reports whether the cache keeps method's answers.
func (c *Cache) Caches(method string) bool { return c != nil && c.methods[method] }

// Get returns the answer kept under key, unless the block it is about is
// not canonical (chain holds its height with another hash: the entry is
// dropped, in memory and Redis). chain may be nil: nothing is judged.
func (c *Cache) Get(ctx context.Context, key []byte, chain Canon) ([]byte, bool) {
	if v, ok := c.mem.GetIfPresent(lookupKey(key)); ok {
		if b, answer, ok := decodeEntry(v); ok && canonical(chain, b) {
			c.admit.lookedUp(true)
			c.hit()
			return answer, true
		}
		c.drop(ctx, string(key))
	} else if c.opts.Redis != nil {
		rctx, cancel := context.WithTimeout(ctx, c.opts.RedisTimeout)
		v, err := c.opts.Redis.Get(rctx, c.opts.RedisPrefix+string(key)).Bytes()
		cancel()
		if b, answer, ok := decodeEntry(v); err == nil && ok {
			if canonical(chain, b) {
				c.mem.Set(string(key), v)
				c.admit.lookedUp(true)
				c.hit()
				return answer, true
			}
			c.drop(ctx, string(key))
		}
		if err != nil && !errors.Is(err, redis.Nil) {
			slog.Debug("cache: redis read failed", "err", err)
		}
	}
	c.admit.lookedUp(false)
	if c.opts.Stats != nil {
		c.opts.Stats.Miss()
	}
	return nil, false
}

// drop removes the entry under key, in memory and Redis.
func (c *Cache) drop(ctx context.Context, key string) {
	c.mem.Invalidate(key)
	if c.opts.Redis != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.RedisTimeout)
		if err := c.opts.Redis.Del(rctx, c.opts.RedisPrefix+key).Err(); err != nil {
			slog.Debug("cache: redis delete failed", "err", err)
		}
		cancel()
	}
}

func (c *Cache) hit() {
	if c.opts.Stats != nil {
		c.opts.Stats.Hit()
	}
}

// Admit reports whether an answer fetched for key should be kept: always
// while lookups find what they look for; when they mostly miss, the second
// time the key is fetched while it is remembered (admit.go).
func (c *Cache) Admit(key []byte) bool { return c.admit.admit(key) }

// Set keeps a copy of answer, about block b, under key. In Redis the key
// is also listed under b's number (blockSet), for DropFrom.
func (c *Cache) Set(ctx context.Context, key []byte, b Block, answer []byte) {
	k := string(key)
	v := encodeEntry(b, answer)
	c.mem.Set(k, v)
	if c.opts.Stats != nil {
		c.opts.Stats.Bytes(c.mem.WeightedSize())
	}
	if c.opts.Redis != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.RedisTimeout)
		set := c.blockSet(b.Number)
		_, err := c.opts.Redis.Pipelined(rctx, func(p redis.Pipeliner) error {
			p.Set(rctx, c.opts.RedisPrefix+k, v, c.opts.RedisTTL)
			p.SAdd(rctx, set, c.opts.RedisPrefix+k)
			p.Expire(rctx, set, c.opts.RedisTTL)
			return nil
		})
		if err != nil {
			slog.Debug("cache: redis write failed", "err", err)
		}
		cancel()
	}
}

// blockSet is the Redis set listing the keys of entries about block n.
func (c *Cache) blockSet(n uint64) string {
	return c.opts.RedisPrefix + "\x00block\x00" + strconv.FormatUint(n, 10)
}

// MaxDrop bounds how many heights one DropFrom clears in Redis (the
// canonical chain's window: no reorg the pool follows by hash is deeper).
const MaxDrop = 128

// DropFrom drops every entry about a block from from to to (a reorg left
// those heights): in memory by reading each entry's block, in Redis by the
// sets of keys per block number (at most MaxDrop heights from from).
func (c *Cache) DropFrom(ctx context.Context, from, to uint64) {
	for k, v := range c.mem.All() {
		if b, _, ok := decodeEntry(v); !ok || b.Number >= from && b.Number <= to {
			c.mem.Invalidate(k)
		}
	}
	if c.opts.Redis == nil || to < from {
		return
	}
	to = min(to, from+MaxDrop-1)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.RedisTimeout*2)
	defer cancel()
	var sets []string
	for n := from; n <= to; n++ {
		sets = append(sets, c.blockSet(n))
	}
	cmds, err := c.opts.Redis.Pipelined(rctx, func(p redis.Pipeliner) error {
		for _, s := range sets {
			p.SMembers(rctx, s)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		slog.Warn("cache: entries of blocks a reorg left could not be listed in redis", "from", from, "to", to, "err", err)
		return
	}
	keys := sets
	for _, cmd := range cmds {
		if sm, ok := cmd.(*redis.StringSliceCmd); ok {
			keys = append(keys, sm.Val()...)
		}
	}
	if err := c.opts.Redis.Del(rctx, keys...).Err(); err != nil {
		slog.Warn("cache: entries of blocks a reorg left could not be dropped from redis", "from", from, "to", to, "err", err)
	}
}

// lookupKey is key as a string for a lookup only, without a copy: the
// cache does not keep the keys it is asked for, and key is not changed
// while the lookup runs.
func lookupKey(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	return unsafe.String(&key[0], len(key))
}

// Bytes is the memory the entries take now.
func (c *Cache) Bytes() uint64 { return c.mem.WeightedSize() }

// Close stops the cache's background work.
func (c *Cache) Close() { c.mem.StopAllGoroutines() }

// Key is the cache key of a call: the chain it is about (its chain id and
// genesis hash, upstream.Pool.Chain), method and params as sent. The chain
// keeps apart what one network name served before and after a reload
// moved it to another chain, and what fleets sharing a Redis under one
// network name serve from different chains.
func Key(buf []byte, chain, method string, params []byte) []byte {
	buf = append(buf, chain...)
	buf = append(buf, 0)
	buf = append(buf, method...)
	buf = append(buf, 0)
	return append(buf, params...)
}
