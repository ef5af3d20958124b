package keys

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/ident"
)

// Cache serves key lookups from memory. It holds an immutable snapshot of
// the active keys (copy on write per shard, cache_table.go, so lookups take
// no lock and a change copies only the shards it touches)
// and follows the store by polling its change counter: a change made by
// any process sharing the store reaches this one within one poll interval,
// and costs a read of the changed keys only, however many keys (revoked
// ones above all) the store holds. While the store is unreachable the last
// snapshot keeps serving. It also purges the accounts' long-revoked keys
// (PurgeRevoked) every purgeEvery.
type Cache struct {
	store Store
	// plans are guarded by refreshMu; shared is their copy for readers
	// (Plans) that must not wait on a refresh's I/O.
	plans      map[string]Plan
	shared     atomic.Pointer[map[string]Plan]
	staticPlan string
	static     []*Key
	opts       CacheOptions
	// tokens checks every key's JSON Web Tokens (one verdict cache).
	tokens *TokenVerifier

	snap    atomic.Pointer[snapshot]
	version int64 // guarded by refreshMu
	// now is a coarse clock (unix seconds) for last-used stamps, so that a
	// lookup never reads the system clock.
	now       atomic.Int64
	refreshMu sync.Mutex
	failing   bool // guarded by refreshMu: log outages once, not every poll
	// checked is when the store last answered a refresh (unix nanoseconds).
	checked atomic.Int64
	// began is when the latest refresh began (unix nanoseconds): a miss
	// older than it needs no check of its own (checkAfterMiss).
	began atomic.Int64

	cancel context.CancelFunc
	done   chan struct{}
}

type snapshot struct {
	keys *keyTable // cache_table.go
	// replaced is closed when a newer snapshot takes this one's place.
	replaced chan struct{}
}

// CacheOptions tune a Cache.
type CacheOptions struct {
	// Poll is how often the change counter is read (default 250ms; a change
	// must reach every replica within 1 s).
	Poll time.Duration
	// FlushUses is how often last-used times are written back (default 10s).
	FlushUses time.Duration
	// Tokens configure the check of keys' JSON Web Tokens.
	Tokens TokenOptions
}

func (o CacheOptions) withDefaults() CacheOptions {
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.FlushUses <= 0 {
		o.FlushUses = 10 * time.Second
	}
	return o
}

// NewCache loads every key once (an unreachable store is an error here,
// at start) and starts following the store. staticKeys are plain keys from
// the configuration, accepted on staticPlan besides the store's keys.
func NewCache(ctx context.Context, store Store, plans map[string]Plan, staticPlan string, staticKeys []string, opts CacheOptions) (*Cache, error) {
	c := &Cache{store: store, plans: plans, staticPlan: staticPlan, opts: opts.withDefaults(), done: make(chan struct{}), tokens: NewTokenVerifier(opts.Tokens)}
	c.shared.Store(&plans)
	c.now.Store(time.Now().Unix())
	plan, ok := plans[staticPlan]
	if !ok && len(staticKeys) > 0 {
		return nil, fmt.Errorf("api keys: plan %q is not configured", staticPlan)
	}
	for _, k := range staticKeys {
		if !ident.ValidKey(k) {
			return nil, fmt.Errorf("api key %q: %w", redact(k), ErrMalformed)
		}
		h := HashOf(k)
		r := Record{ID: IDOf(h), Name: "config", Plan: staticPlan, Status: StatusActive, Hash: h}
		key := r.compile(plan, nil)
		key.Static = true
		c.static = append(c.static, key)
	}
	if store == nil {
		c.publish(nil)
		close(c.done)
		return c, nil
	}
	if err := c.Refresh(ctx); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.run(runCtx)
	return c, nil
}

// Lookup finds an active key by its plain text. It hashes first and
// confirms the match in constant time, so timing says nothing about how
// much of a guess was right; the plain key is never kept.
func (c *Cache) Lookup(plain string) (*Key, bool) {
	if !ident.ValidKey(plain) {
		return nil, false
	}
	h := HashOf(plain)
	k, ok := c.find(h)
	if !ok && c.checkAfterMiss() {
		k, ok = c.find(h)
	}
	if !ok {
		return nil, false
	}
	k.touch(c.now.Load())
	return k, true
}

func (c *Cache) find(h Hash) (*Key, bool) {
	k, ok := c.snap.Load().keys.byHashOf(h)
	if !ok || subtle.ConstantTimeCompare(k.hash[:], h[:]) != 1 {
		return nil, false
	}
	return k, true
}

// missCheckTimeout bounds the store check a missed key waits for.
const missCheckTimeout = time.Second

// checkAfterMiss reads the store's change counter after a well-formed key
// was not found, so that a key made a moment ago (by `nodegate keys`, the
// dashboard or another replica) works on its first call instead of after
// the next poll. Misses that arrive together share one check: a refresh
// that began after a miss answers for it, so a flood of unknown keys costs
// the store at most one check at a time. While the store is known to be
// unreachable, a miss is answered at once. It reports whether the
// snapshot may have changed.
func (c *Cache) checkAfterMiss() bool {
	if c.store == nil {
		return false
	}
	missed := time.Now().UnixNano()
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	if c.began.Load() > missed {
		return true
	}
	if c.failing {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), missCheckTimeout)
	defer cancel()
	return c.refreshLocked(ctx) == nil
}

// Used records a use of k (found by ByID) for its last_used_at, as Lookup
// does for the key it finds: an open WebSocket's calls are uses.
func (c *Cache) Used(k *Key) { k.touch(c.now.Load()) }

// ByID returns an active key by its id (for tools and tests).
func (c *Cache) ByID(id string) (*Key, bool) {
	return c.snap.Load().keys.byIDOf(id)
}

// Checked is when the key store last answered a refresh: a replica
// whose store is unreachable serves the keys of that moment.
func (c *Cache) Checked() time.Time { return time.Unix(0, c.checked.Load()) }

// Len is the number of usable keys, static ones included.
func (c *Cache) Len() int { return c.snap.Load().keys.n }

// Refresh follows the store when its change counter moved: it reloads the
// keys the change log names (cache_follow.go), or every live key (and the
// plans) when the log does not account for every change.
func (c *Cache) Refresh(ctx context.Context) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	return c.refreshLocked(ctx)
}

// refreshLocked is Refresh with refreshMu held.
func (c *Cache) refreshLocked(ctx context.Context) error {
	c.began.Store(time.Now().UnixNano())
	v, err := c.store.Version(ctx)
	if err != nil {
		return fmt.Errorf("key store %s: %w", c.store.Describe(), err)
	}
	if c.snap.Load() != nil && v == c.version {
		c.checked.Store(time.Now().UnixNano())
		return nil
	}
	if c.snap.Load() != nil {
		done, err := c.followChanges(ctx, v)
		if err != nil {
			return fmt.Errorf("key store %s: %w", c.store.Describe(), err)
		}
		if done {
			c.version = v
			c.checked.Store(time.Now().UnixNano())
			return nil
		}
	}
	recs, err := c.store.ListActive(ctx)
	if err != nil {
		return fmt.Errorf("key store %s: %w", c.store.Describe(), err)
	}
	stored, err := c.store.StoredPlans(ctx)
	if err != nil {
		return fmt.Errorf("key store %s: %w", c.store.Describe(), err)
	}
	if len(stored) > 0 && !reflect.DeepEqual(stored, named(c.plans)) {
		changed := planDiff(named(c.plans), stored)
		if err := c.usePlans(stored, c.staticPlan); err != nil {
			slog.Error("plans in the key store not applied", "err", err)
		} else {
			slog.Info("plans: applying the key store's", "changed", changed)
		}
	}
	c.publish(recs)
	c.version = v
	c.checked.Store(time.Now().UnixNano())
	return nil
}

// publish builds and swaps in a snapshot of the active records plus the
// static keys, carrying last-used counters over by id.
func (c *Cache) publish(recs []Record) {
	old := c.snap.Load()
	e := edit(nil)
	for _, k := range c.static {
		e.put(k)
	}
	for i := range recs {
		var prev *Key
		if old != nil {
			if k, ok := old.keys.byIDOf(recs[i].ID); ok && !k.Static {
				prev = k
			}
		}
		if k := c.compiled(&recs[i], prev); k != nil {
			e.put(k)
		}
	}
	c.snap.Store(&snapshot{keys: e.done(), replaced: make(chan struct{})})
	if old != nil {
		close(old.replaced)
	}
}

// compiled is r as the hot path reads it, keeping prev's last-used time
// (prev: the key it replaces, or nil); nil when r serves nothing (not
// active, or its plan is not configured: said at WARN).
func (c *Cache) compiled(r *Record, prev *Key) *Key {
	if r.Status != StatusActive {
		return nil
	}
	plan, ok := c.plans[r.Plan]
	if !ok {
		slog.Warn("key refused: its plan is not configured", "key_id", r.ID, "plan", r.Plan)
		return nil
	}
	var lastUsed *atomic.Int64
	if prev != nil {
		lastUsed = prev.lastUsed
	}
	k := r.compile(plan, lastUsed)
	if k.security.jwt != nil {
		k.security.jwt.verifier = c.tokens
	}
	return k
}

// Changed returns a channel that is closed when the keys next change (a
// store change reaches it within one poll interval). Holders of a Key
// (open WebSockets) wait on it and look their key up again by id.
func (c *Cache) Changed() <-chan struct{} { return c.snap.Load().replaced }

func (c *Cache) run(ctx context.Context) {
	defer close(c.done)
	poll := time.NewTicker(c.opts.Poll)
	defer poll.Stop()
	flush := time.NewTicker(c.opts.FlushUses)
	defer flush.Stop()
	purge := time.NewTicker(purgeEvery)
	defer purge.Stop()
	flushed := map[string]int64{}
	c.purgeRevoked(ctx)
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			c.flushUses(fctx, flushed)
			cancel()
			return
		case <-poll.C:
			c.now.Store(time.Now().Unix())
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			c.noteOutage(c.Refresh(rctx))
			cancel()
		case <-purge.C:
			c.purgeRevoked(ctx)
		case <-flush.C:
			fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			c.flushUses(fctx, flushed)
			cancel()
		}
	}
}

// noteOutage logs the store going away and coming back, once each.
func (c *Cache) noteOutage(err error) {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	switch {
	case err != nil && !c.failing:
		c.failing = true
		slog.Error("key store unreachable: serving the keys in memory; changes resume when it is back", "err", err)
	case err == nil && c.failing:
		c.failing = false
		slog.Info("key store reachable again")
	}
}

// flushUses writes last-used times that moved since the last flush.
func (c *Cache) flushUses(ctx context.Context, flushed map[string]int64) {
	used := map[string]int64{}
	c.snap.Load().keys.each(func(id string, k *Key) {
		if t := k.lastUsed.Load(); !k.Static && t > flushed[id] {
			used[id] = t
		}
	})
	if len(used) == 0 {
		return
	}
	if err := c.store.RecordUse(ctx, used); err != nil {
		slog.Debug("key store: last-used times not saved yet", "err", err)
		return
	}
	for id, t := range used {
		flushed[id] = t
	}
}

// Close stops following the store and saves the last-used times. It does
// not close the store.
func (c *Cache) Close() {
	if c.cancel != nil {
		c.cancel()
	}
	<-c.done
}

// SetPlans replaces the plans that keys are compiled with (a configuration
// reload) and recompiles every key at once; staticPlan is the plan of the
// configuration's own keys.
func (c *Cache) SetPlans(ctx context.Context, plans map[string]Plan, staticPlan string) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	var recs []Record
	if c.store != nil {
		var err error
		if recs, err = c.store.ListActive(ctx); err != nil {
			return fmt.Errorf("key store %s: %w", c.store.Describe(), err)
		}
	}
	if err := c.usePlans(plans, staticPlan); err != nil {
		return err
	}
	c.publish(recs)
	return nil
}

// usePlans makes plans the ones keys are compiled with, the static keys'
// recompiled on staticPlan; the caller holds refreshMu and publishes.
func (c *Cache) usePlans(plans map[string]Plan, staticPlan string) error {
	plan, ok := plans[staticPlan]
	if !ok && len(c.static) > 0 {
		return fmt.Errorf("api keys: plan %q is not configured", staticPlan)
	}
	static := make([]*Key, len(c.static))
	for i, k := range c.static {
		r := Record{ID: k.ID, Name: "config", Plan: staticPlan, Status: StatusActive, Hash: k.hash}
		static[i] = r.compile(plan, nil)
		static[i].Static = true
	}
	c.plans, c.static, c.staticPlan = plans, static, staticPlan
	c.shared.Store(&plans)
	return nil
}

// Plans are the plans keys are compiled with now: the key store's once a
// replica wrote them.
func (c *Cache) Plans() map[string]Plan { return *c.shared.Load() }
