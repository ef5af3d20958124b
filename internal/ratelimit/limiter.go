package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limiter decides credits for keys: in memory, or through Redis with a
// fallback to per-replica limits in memory while Redis is unreachable.
type Limiter struct {
	local *Memory
	// shared is nil without Redis.
	shared *Redis
	client *redis.Client
	opts   Options
	// up is true while Redis answers; requests skip Redis while it is not,
	// so an outage costs them nothing, and the heartbeat finds it back.
	up       atomic.Bool
	known    atomic.Bool // up was decided once (setUp): the first decision is logged too
	replicas atomic.Int64
	// carried is what this replica last knew of each key's buckets
	// (carry.go): key or daily subject → *carried.
	carried sync.Map
	// failSince and failCount are the current streak of failed round
	// trips (failures.go).
	failSince atomic.Int64
	failCount atomic.Int64
	stateMu   sync.Mutex
	cancel    context.CancelFunc
	done      chan struct{}
	metrics   *metrics
	now       func() time.Time
	replicaID string
}

// Options configure a Limiter.
type Options struct {
	// RedisURL (redis://[user:pass@]host:port/db) shares the budget across
	// replicas; empty keeps it in memory.
	RedisURL string
	// Prefix namespaces nodegate's Redis keys (default "nodegate").
	Prefix string
	// Timeout bounds one Redis round trip (default 100ms): past it a
	// request is decided locally, and the failure counts towards marking
	// Redis unreachable (failures.go).
	Timeout time.Duration
	// Heartbeat is how often a replica announces itself and probes Redis
	// (default 1s); a replica unseen for 3 heartbeats no longer counts.
	// Redis is marked unreachable once its round trips have failed for
	// two heartbeats in a row (failures.go).
	Heartbeat time.Duration
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = "nodegate"
	}
	if o.Timeout <= 0 {
		o.Timeout = 100 * time.Millisecond
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = time.Second
	}
	return o
}

// New makes a limiter. With a Redis URL it connects and registers this
// replica; Redis being down at start is not an error (the limiter starts
// on local limits and logs it), a malformed URL is.
func New(opts Options) (*Limiter, error) {
	opts = opts.withDefaults()
	l := &Limiter{local: NewMemory(), opts: opts, metrics: newMetrics(), now: time.Now, done: make(chan struct{})}
	l.replicas.Store(1)
	if opts.RedisURL == "" {
		close(l.done)
		return l, nil
	}
	ro, err := redis.ParseURL(opts.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("rate limit redis_url: %w", err)
	}
	ro.DialTimeout = 2 * opts.Timeout
	ro.ReadTimeout = opts.Timeout
	ro.WriteTimeout = opts.Timeout
	ro.PoolTimeout = opts.Timeout
	ro.MaxRetries = -1 // a retry would double the latency an outage adds
	ro.ContextTimeoutEnabled = true
	l.client = redis.NewClient(ro)
	l.client.AddHook(rttHook{obs: l.metrics.redisRTT})
	l.shared = NewRedis(l.client, opts.Prefix)
	var b [8]byte
	_, _ = rand.Read(b[:])
	l.replicaID = hex.EncodeToString(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	if err := l.heartbeat(ctx); err != nil { // decide the starting state before serving
		l.setUp(false, err) // unreachable at start: said once, at start
	}
	go l.run(ctx)
	return l, nil
}

// Shared reports whether decisions are currently made in Redis.
func (l *Limiter) Shared() bool { return l.shared != nil && l.up.Load() }

// Replicas is the replica count last seen in Redis (1 without Redis).
func (l *Limiter) Replicas() int64 { return l.replicas.Load() }

// Take decides cost credits for key. It never fails: without Redis the
// decision is local. A round trip that fails is decided locally from
// what this replica carries over (carry.go); Redis is given up for local
// limits only by the failure rule (failures.go).
func (l *Limiter) Take(ctx context.Context, key string, cost int64, lim Limits, mode Mode) Decision {
	if lim.Unlimited() {
		return Decision{}
	}
	t := l.now()
	day := dayOf(t)
	if l.shared == nil {
		d, _ := l.local.Take(ctx, key, cost, lim, day, mode)
		return d
	}
	rate, daily := l.carriedOf(key, lim)
	lim.drainedBy, lim.drainedLocally = rate.drained.Load(), rate.local.Load()
	lim.dailyAtLeast = daily.usedOn(day)
	if l.up.Load() {
		rctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
		d, err := l.shared.Take(rctx, key, cost, lim, day, mode)
		cancel()
		if err == nil {
			l.succeeded()
			rate.raise(d.drained)
			if lim.drainedLocally {
				rate.local.Store(false)
			}
			daily.remember(day, d.DailyUsed)
			return d
		}
		if ctx.Err() == nil { // the client going away says nothing about Redis
			l.failed(err)
		}
	}
	return l.fallback(ctx, key, cost, lim, day, mode, rate, daily)
}

// fallback decides locally with this replica's share: the rate divided by
// the replicas last seen, and that share of the daily credits Redis had
// not yet spent. The local bucket starts where the key's bucket was last
// known to be (carry.go), not full.
func (l *Limiter) fallback(ctx context.Context, key string, cost int64, lim Limits, day int, mode Mode, rate, daily *carried) Decision {
	n := max(l.replicas.Load(), 1)
	seen := daily.usedOn(day)
	share := Limits{Rate: lim.Rate / float64(n), Burst: lim.Burst / float64(n), DailyOf: lim.DailyOf, drainedBy: lim.drainedBy}
	if lim.Daily > 0 {
		share.Daily = (lim.Daily - seen) / n
		if share.Daily <= 0 && mode != Spend {
			return Decision{Outcome: DailyExceeded, RetryAfter: untilMidnight(l.now()), DailyUsed: seen}
		}
	}
	d, _ := l.local.Take(ctx, key, cost, share, day, mode)
	rate.raise(d.drained)
	if !rate.local.Load() {
		rate.local.Store(true)
	}
	d.DailyUsed += seen
	return d
}

// heartbeatScript registers a replica and counts the live ones, on Redis'
// clock. KEYS[1]: the replica set; ARGV: replica id, time to live (ms).
var heartbeatScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return redis.call('ZCARD', KEYS[1])
`)

func (l *Limiter) run(ctx context.Context) {
	defer close(l.done)
	t := time.NewTicker(l.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = l.heartbeat(ctx) // its outcome is in l.up
		}
	}
}

// heartbeat registers this replica and reads the replica count; it
// returns the round trip's error.
func (l *Limiter) heartbeat(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, 4*l.opts.Timeout)
	defer cancel()
	n, err := heartbeatScript.Run(hctx, l.client, []string{l.opts.Prefix + ":replicas"}, l.replicaID, (3 * l.opts.Heartbeat).Milliseconds()).Int64()
	if err != nil {
		if ctx.Err() == nil {
			l.failed(err)
		}
		return err
	}
	l.replicas.Store(max(n, 1))
	l.succeeded()
	l.setUp(true, nil)
	return nil
}

// setUp records Redis' state and logs each change once.
func (l *Limiter) setUp(up bool, err error) {
	if l.known.Load() && l.up.Load() == up {
		return
	}
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	if l.known.Load() && l.up.Load() == up {
		return
	}
	l.known.Store(true) // the first decision is logged too: Redis unreachable at start
	if up {
		// The outage's local counts are done with: Redis holds the budget again.
		l.local.forget()
		l.up.Store(true)
		l.metrics.shared.Set(1)
		slog.Info("rate limits: Redis reachable, the budget is shared across replicas", "replicas", l.replicas.Load())
		return
	}
	l.up.Store(false)
	l.metrics.shared.Set(0)
	slog.Error("rate limits: Redis unreachable, enforcing per-replica limits (the budget divided by the replicas last seen)", "replicas", l.replicas.Load(), "err", err)
}

// Close stops the heartbeat and deregisters this replica.
func (l *Limiter) Close() error {
	if l.client == nil {
		return nil
	}
	l.cancel()
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), 4*l.opts.Timeout)
	defer cancel()
	_ = l.client.ZRem(ctx, l.opts.Prefix+":replicas", l.replicaID).Err()
	return l.client.Close()
}
