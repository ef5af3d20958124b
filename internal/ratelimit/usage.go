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

// usageKey is one record's identity.
type usageKey struct {
	day, key, network, method string
}

type usageCounts struct {
	requests, credits int64
	errors            keys.UsageErrors
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
	k := usageKey{day: day, key: keyID, network: network, method: method}
	u.mu.Lock()
	c := u.pending[k]
	if c == nil {
		c = &usageCounts{}
		u.pending[k] = c
	}
	c.requests += n
	c.credits += credits
	c.errors.Add(errs)
	u.mu.Unlock()
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
		rows = append(rows, keys.UsageRow{Day: k.day, KeyID: k.key, Network: k.network, Method: k.method, Requests: c.requests, Credits: c.credits, Errors: c.errors})
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
			cur.requests += c.requests
			cur.credits += c.credits
			cur.errors.Add(c.errors)
			continue
		}
		u.pending[k] = c
	}
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
