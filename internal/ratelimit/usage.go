package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// UsageSink keeps usage records durably (the key store).
type UsageSink interface {
	AddUsage(ctx context.Context, rows []keys.UsageRow) error
}

// usageKey is one record's identity: minute is the unix minute its calls
// were counted in (0: none, the day's record only).
type usageKey struct {
	day, key, network, method string
	minute                    int64
}

type usageCounts struct {
	requests, credits int64
	errors            keys.UsageErrors
	// The analytics (keys.UsageRow): latency holds timed calls only.
	timed   bool
	latency keys.LatencyHist
	codes   map[int]int64 // made on the first error code
}

// add adds o's counts to c.
func (c *usageCounts) add(o *usageCounts) {
	c.requests += o.requests
	c.credits += o.credits
	c.errors.Add(o.errors)
	if o.timed {
		c.timed = true
		c.latency.Merge(&o.latency)
	}
	for code, n := range o.codes {
		c.addCode(code, n)
	}
}

func (c *usageCounts) addCode(code int, n int64) {
	if c.codes == nil {
		c.codes = map[int]int64{}
	}
	c.codes[code] += n
}

// Stamp is when a call was counted: its UTC day (keys.UsageDay) and its
// unix minute.
type Stamp struct {
	Day    string
	Minute int64
}

// StampOf is t's Stamp.
func StampOf(t time.Time) Stamp { return Stamp{Day: keys.UsageDay(t), Minute: t.Unix() / 60} }

// Answered is what the analytics keep of one call's answer: its JSON-RPC
// error code (0: none) and how long nodegate took to answer it (0: not
// timed, as a call refused before it ran).
type Answered struct {
	Code int
	Took time.Duration
}

// Usage aggregates usage in memory and adds it to the sink every Flush
// interval and on Close. A failed flush keeps the counts for the next one,
// so nothing counted is lost while the process lives; Close flushes last.
type Usage struct {
	sink  UsageSink
	every time.Duration

	mu      sync.Mutex
	pending map[usageKey]*usageCounts
	// flushMu serialises flushes so that a retry never races a newer flush.
	flushMu sync.Mutex

	cancel context.CancelFunc
	done   chan struct{}
}

// DefaultUsageFlush is how often usage reaches the store.
const DefaultUsageFlush = 2 * time.Second

// NewUsage starts aggregating; every <= 0 means DefaultUsageFlush.
func NewUsage(sink UsageSink, every time.Duration) *Usage {
	if every <= 0 {
		every = DefaultUsageFlush
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &Usage{sink: sink, every: every, pending: map[usageKey]*usageCounts{}, cancel: cancel, done: make(chan struct{})}
	go u.run(ctx)
	return u
}

// Add counts one call.
func (u *Usage) Add(day, keyID, network, method string, credits int64, errs keys.UsageErrors) {
	u.AddN(day, keyID, network, method, 1, credits, errs)
}

// AddN counts n calls (or notifications) of credits in all.
func (u *Usage) AddN(day, keyID, network, method string, n, credits int64, errs keys.UsageErrors) {
	u.AddAt(Stamp{Day: day}, keyID, network, method, n, credits, errs)
}

// AddAt is AddN in the minute of at as well as its day.
func (u *Usage) AddAt(at Stamp, keyID, network, method string, n, credits int64, errs keys.UsageErrors) {
	k := usageKey{day: at.Day, key: keyID, network: network, method: method, minute: at.Minute}
	u.mu.Lock()
	c := u.counts(k)
	c.requests += n
	c.credits += credits
	c.errors.Add(errs)
	u.mu.Unlock()
}

// AddCall counts one call in the day and minute of at, with what the
// analytics keep of its answer. It allocates only for a record's first
// call since the last flush (and its first error code).
func (u *Usage) AddCall(at Stamp, keyID, network, method string, credits int64, errs keys.UsageErrors, a Answered) {
	k := usageKey{day: at.Day, key: keyID, network: network, method: method, minute: at.Minute}
	u.mu.Lock()
	c := u.counts(k)
	c.requests++
	c.credits += credits
	c.errors.Add(errs)
	if a.Took > 0 {
		c.timed = true
		c.latency.Observe(a.Took)
	}
	if a.Code != 0 {
		c.addCode(a.Code, 1)
	}
	u.mu.Unlock()
}

// counts is k's pending counts, made when missing (u.mu held).
func (u *Usage) counts(k usageKey) *usageCounts {
	c := u.pending[k]
	if c == nil {
		c = &usageCounts{}
		u.pending[k] = c
	}
	return c
}

func (u *Usage) run(ctx context.Context) {
	defer close(u.done)
	t := time.NewTicker(u.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if err := u.Flush(fctx); err != nil {
				slog.Warn("usage records not saved yet (kept for the next flush)", "err", err)
			}
			cancel()
		}
	}
}

// Flush adds what was counted since the last flush to the sink.
func (u *Usage) Flush(ctx context.Context) error {
	u.flushMu.Lock()
	defer u.flushMu.Unlock()
	u.mu.Lock()
	batch := u.pending
	u.pending = make(map[usageKey]*usageCounts, len(batch))
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	rows := make([]keys.UsageRow, 0, len(batch))
	for k, c := range batch {
		rows = append(rows, usageRow(k, c))
	}
	if err := u.sink.AddUsage(ctx, rows); err != nil {
		u.restore(batch)
		return err
	}
	return nil
}

// restore puts an unsaved batch back under what was counted meanwhile.
func (u *Usage) restore(batch map[usageKey]*usageCounts) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for k, c := range batch {
		if cur := u.pending[k]; cur != nil {
			cur.add(c)
			continue
		}
		u.pending[k] = c
	}
}

// usageRow is the record of k's counts c, with its minute and analytics.
func usageRow(k usageKey, c *usageCounts) keys.UsageRow {
	r := keys.UsageRow{Day: k.day, KeyID: k.key, Network: k.network, Method: k.method,
		Requests: c.requests, Credits: c.credits, Errors: c.errors}
	if c.codes != nil {
		r.Codes = &c.codes
	}
	if k.minute != 0 {
		r.Minute = keys.UsageMinute(time.Unix(k.minute*60, 0))
	}
	if c.timed {
		r.Latency = &c.latency
	}
	return r
}

// Close stops the periodic flush and flushes what is left, trying again
// (a deadlock or a connection lost at shutdown is usually brief) until it
// is saved, ctx ends or closeAttempts have failed.
func (u *Usage) Close(ctx context.Context) error {
	u.cancel()
	<-u.done
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := u.Flush(ctx)
		if err == nil {
			return nil
		}
		if attempt == closeAttempts || ctx.Err() != nil {
			return fmt.Errorf("usage records not saved at shutdown after %d attempts: %w", attempt, err)
		}
		slog.Warn("usage records not saved at shutdown yet: trying again", "attempt", attempt, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// closeAttempts bounds the final flush's attempts.
const closeAttempts = 10
