package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// DefaultNotesFlush is how often the notifications written are spent in
// the limiter and counted in the usage records.
const DefaultNotesFlush = 100 * time.Millisecond

// notesFlushWorkers bounds the limiter operations one flush runs at once.
const notesFlushWorkers = 16

// Notes charges WebSocket subscription notifications in aggregate. A
// notification is reserved against its key's daily credits when it is
// queued (in memory: the day's spend as the limiter last reported it, plus
// what this replica reserved and wrote since), counted when it is written
// to the socket, and given back when it is dropped unwritten. Every flush
// interval the counts are spent in the limiter (one operation per key,
// whatever its number of subscribers) and added to the usage records, so
// that both equal the notifications written, exactly.
//
// Notes is made once and outlives reloads: a connection keeps the account
// it opened.
type Notes struct {
	lim   *Limiter
	usage *Usage
	every time.Duration
	now   func() time.Time

	mu       sync.Mutex
	accounts map[noteKey]*noteAccount
	// forgotten counts the flushes that forgot accounts (guarded by mu):
	// an Open whose read of the day's spend raced one reads again, since
	// the forgotten account's last spend may have landed after its read.
	forgotten int64

	flushMu sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
}

type noteKey struct{ key, network string }

// noteAccount is one key's notifications on one network. Its counters
// are atomic: every connection of the key reserves and counts on it, from
// the fan-out and from each connection's writer at once.
type noteAccount struct {
	id   noteKey
	refs int // guarded by Notes.mu

	// daily is the key's daily credits as last seen (0: no budget);
	// dailyOf whom they are counted for (the key's account,
	// Limits.DailyOf), fixed when the account is opened.
	daily   atomic.Int64
	dailyOf string
	// committed is what a reservation is checked against: the day's spend
	// as the limiter last reported it, plus the credits of notifications
	// written since and of those queued.
	committed atomic.Int64
	// queued counts notifications reserved and not yet written or
	// dropped; written and credits those written since the last flush.
	queued  atomic.Int64
	written atomic.Int64
	credits atomic.Int64

	// Used by flushes alone (Notes.flushMu): the UTC day and the spend
	// the limiter last reported, which committed includes.
	day   int
	spent int64
}

// NewNotes starts charging notifications to lim and usage (either may be
// nil) every interval (DefaultNotesFlush when <= 0), until Close.
func NewNotes(lim *Limiter, usage *Usage, every time.Duration) *Notes {
	if every <= 0 {
		every = DefaultNotesFlush
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notes{lim: lim, usage: usage, every: every, now: time.Now, accounts: map[noteKey]*noteAccount{}, cancel: cancel, done: make(chan struct{})}
	go n.run(ctx)
	return n
}

// NoteAccount is one connection's handle on its key's notification
// account. Its methods do no I/O. A nil NoteAccount charges nothing.
type NoteAccount struct {
	n    *Notes
	a    *noteAccount
	cost int64
}

// Open returns the account of key's notifications on network, each
// costing cost credits; the first connection of a key reads the day's
// spend from the limiter (the only I/O of an account, outside flushes),
// again when a flush forgot an account meanwhile (its spend may have
// landed after the read).
func (n *Notes) Open(ctx context.Context, key *keys.Key, network string, cost int64) *NoteAccount {
	if n == nil || key == nil {
		return nil
	}
	id := noteKey{key: key.ID, network: network}
	var fresh *noteAccount
	var gen int64
	n.mu.Lock()
	for {
		if a := n.accounts[id]; a != nil { // open, or another connection opened it meanwhile
			a.refs++
			n.mu.Unlock()
			return &NoteAccount{n: n, a: a, cost: cost}
		}
		// Kept unless a flush forgot an account after spending for it
		// while the spend was read (then read again).
		if fresh != nil && n.forgotten == gen {
			n.accounts[id] = fresh
			n.mu.Unlock()
			return &NoteAccount{n: n, a: fresh, cost: cost}
		}
		gen = n.forgotten
		n.mu.Unlock()
		fresh = n.read(ctx, key, id)
		n.mu.Lock()
	}
}

// read makes key's account on a network with the day's spend the limiter
// reports (no lock held: it may be a Redis round trip).
func (n *Notes) read(ctx context.Context, key *keys.Key, id noteKey) *noteAccount {
	fresh := &noteAccount{id: id, refs: 1, day: dayOf(n.now()), dailyOf: AccountBudget(key.Account)}
	daily := key.DailyCredits()
	fresh.daily.Store(daily)
	if daily > 0 && n.lim != nil {
		fresh.spent = n.lim.Take(ctx, key.ID, 0, Limits{Daily: daily, DailyOf: fresh.dailyOf}, Spend).DailyUsed
		fresh.committed.Store(fresh.spent)
	}
	return fresh
}

// Reserve counts one notification for key (its current record) before it
// is queued. It reports false, with the reason to close the connection
// with, once the key's daily credits would be passed.
func (h *NoteAccount) Reserve(key *keys.Key) (ok bool, closeReason string) {
	if h == nil {
		return true, ""
	}
	a := h.a
	daily := a.daily.Load()
	if key != nil {
		if daily = key.DailyCredits(); daily != a.daily.Load() {
			a.daily.Store(daily)
		}
	}
	for {
		c := a.committed.Load()
		if daily > 0 && c+h.cost > daily {
			return false, DailyCloseReason
		}
		if a.committed.CompareAndSwap(c, c+h.cost) {
			a.queued.Add(1)
			return true, ""
		}
	}
}

// Written counts a reserved notification as delivered: it is spent and
// recorded at the next flush.
func (h *NoteAccount) Written() {
	if h == nil {
		return
	}
	h.a.credits.Add(h.cost)
	h.a.written.Add(1)
	h.a.queued.Add(-1)
}

// Dropped gives back a reserved notification that was never written (its
// connection closed first).
func (h *NoteAccount) Dropped() {
	if h == nil {
		return
	}
	h.a.committed.Add(-h.cost)
	h.a.queued.Add(-1)
}

// Close ends the connection's use of the account; what it wrote is still
// charged at the next flush.
func (h *NoteAccount) Close() {
	if h == nil {
		return
	}
	h.n.mu.Lock()
	h.a.refs--
	h.n.mu.Unlock()
}

func (n *Notes) run(ctx context.Context) {
	defer close(n.done)
	t := time.NewTicker(n.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// Not ctx: a flush that Close interrupts would spend in the
			// fallback instead of the shared budget.
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			n.Flush(fctx)
			cancel()
		}
	}
}

// Flush spends every account's written notifications in the limiter (one
// operation per key) and adds them to the usage records, then forgets the
// accounts no connection uses and nothing is owed on.
func (n *Notes) Flush(ctx context.Context) {
	n.flushMu.Lock()
	defer n.flushMu.Unlock()
	n.mu.Lock()
	accounts := make([]*noteAccount, 0, len(n.accounts))
	for _, a := range n.accounts {
		accounts = append(accounts, a)
	}
	n.mu.Unlock()
	now := n.now()
	day, at := dayOf(now), StampOf(now)
	work := make(chan *noteAccount)
	var wg sync.WaitGroup
	for range min(notesFlushWorkers, len(accounts)) {
		wg.Go(func() {
			for a := range work {
				n.flushAccount(ctx, a, day, at)
			}
		})
	}
	for _, a := range accounts {
		work <- a
	}
	close(work)
	wg.Wait()
	n.mu.Lock()
	for id, a := range n.accounts {
		if a.refs == 0 && a.queued.Load() == 0 && a.written.Load() == 0 {
			delete(n.accounts, id)
			n.forgotten++
		}
	}
	n.mu.Unlock()
}

// flushAccount spends and records what a wrote since the last flush, and
// takes the limiter's answer as the day's spend. The notifications are
// counted in the day and the minute of the flush (at most a flush
// interval after they were written), so that the analytics' per-minute
// and per-hour views show them as well as the day's.
func (n *Notes) flushAccount(ctx context.Context, a *noteAccount, day int, at Stamp) {
	if a.day != day { // a new UTC day: yesterday's spend is not today's
		a.committed.Add(-a.spent)
		a.day, a.spent = day, 0
	}
	written := a.written.Swap(0)
	credits := a.credits.Swap(0) // may hold a write that written did not: counted at the next flush
	if written == 0 && credits == 0 {
		return
	}
	spent := a.spent + credits // committed already holds them
	a.spent = spent
	if n.usage != nil {
		n.usage.AddAt(at, a.id.key, a.id.network, NotificationMethod, written, credits, keys.UsageErrors{})
	}
	daily := a.daily.Load()
	if daily <= 0 || n.lim == nil {
		return
	}
	d := n.lim.Take(ctx, a.id.key, credits, Limits{Daily: daily, DailyOf: a.dailyOf}, Spend) // never refused
	a.committed.Add(d.DailyUsed - spent)
	a.spent = d.DailyUsed
}

// Close stops the periodic flush and flushes what is left (before the
// usage records close).
func (n *Notes) Close(ctx context.Context) {
	if n == nil {
		return
	}
	n.cancel()
	<-n.done
	n.Flush(ctx)
}
