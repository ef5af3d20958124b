package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
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

// Get returns the answer kept under key.
func (c *Cache) Get(ctx context.Context, key []byte) ([]byte, bool) {
	if v, ok := c.mem.GetIfPresent(lookupKey(key)); ok {
		c.admit.lookedUp(true)
		c.hit()
		return v, true
	}
	if c.opts.Redis != nil {
		rctx, cancel := context.WithTimeout(ctx, c.opts.RedisTimeout)
		v, err := c.opts.Redis.Get(rctx, c.opts.RedisPrefix+string(key)).Bytes()
		cancel()
		if err == nil && len(v) > 0 {
			c.mem.Set(string(key), v)
			c.admit.lookedUp(true)
			c.hit()
			return v, true
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

func (c *Cache) hit() {
	if c.opts.Stats != nil {
		c.opts.Stats.Hit()
	}
}

// Admit reports whether an answer fetched for key should be kept: always
// while lookups find what they look for; when they mostly miss, the second
// time the key is fetched while it is remembered (admit.go).
func (c *Cache) Admit(key []byte) bool { return c.admit.admit(key) }

// Set keeps a copy of answer under key.
func (c *Cache) Set(ctx context.Context, key, answer []byte) {
	k := string(key)
	answer = bytes.Clone(answer)
	c.mem.Set(k, answer)
	if c.opts.Stats != nil {
		c.opts.Stats.Bytes(c.mem.WeightedSize())
	}
	if c.opts.Redis != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.RedisTimeout)
		if err := c.opts.Redis.Set(rctx, c.opts.RedisPrefix+k, answer, c.opts.RedisTTL).Err(); err != nil {
			slog.Debug("cache: redis write failed", "err", err)
		}
		cancel()
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
