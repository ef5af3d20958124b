package ratelimit

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
)

// limiters are the two backends notification charging must be exact on.
func limiters(t *testing.T) map[string]func(t *testing.T) *Limiter {
	return map[string]func(t *testing.T) *Limiter{
		"memory": func(t *testing.T) *Limiter {
			l, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		"redis": func(t *testing.T) *Limiter {
			c := redistest.Require(t)
			l, err := New(Options{RedisURL: "redis://" + redistest.Addr() + "/0", Prefix: redistest.Prefix(t, c), Timeout: 2 * time.Second, Heartbeat: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
			if !l.Shared() {
				t.Fatal("limiter not on Redis")
			}
			return l
		},
	}
}

// TestNotesChargeExactly: connections of one key reserve notifications
// concurrently (some dropped unwritten) while flushes run, until the daily
// budget refuses. The limiter's spend and the usage rows in SQLite equal
// the notifications written, and the budget is filled exactly.
func TestNotesChargeExactly(t *testing.T) {
	for name, newLimiter := range limiters(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			lim := newLimiter(t)
			store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			usage := NewUsage(store, time.Hour)
			notes := NewNotes(lim, usage, time.Hour)
			key := keyOn(t, 0, 1000)
			if d := lim.Take(ctx, key.ID, 95, Limits{Daily: 1000}, Admit); d.Outcome != OK {
				t.Fatalf("a call's credits: %+v", d)
			}
			var written, dropped atomic.Int64
			stop := make(chan struct{})
			flushed := make(chan struct{})
			go func() { // flushes racing the connections
				defer close(flushed)
				for {
					select {
					case <-stop:
						return
					default:
						notes.Flush(ctx)
					}
				}
			}()
			var wg sync.WaitGroup
			for c := range 8 {
				wg.Go(func() {
					h := notes.Open(ctx, key, "mainnet", 10)
					defer h.Close()
					for i := 0; ; i++ {
						if ok, reason := h.Reserve(key); !ok {
							if reason != DailyCloseReason {
								t.Errorf("close reason %q", reason)
							}
							return
						}
						if (c+i)%5 == 0 {
							h.Dropped()
							dropped.Add(1)
							continue
						}
						h.Written()
						written.Add(1)
					}
				})
			}
			wg.Wait()
			close(stop)
			<-flushed
			notes.Close(ctx)
			if err := usage.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if written.Load() != 90 || dropped.Load() == 0 {
				t.Fatalf("%d written (%d dropped), want 90: (1000-95)/10", written.Load(), dropped.Load())
			}
			if d := lim.Take(ctx, key.ID, 0, Limits{Daily: 1000}, Spend); d.DailyUsed != 95+10*written.Load() {
				t.Fatalf("limiter spent %d, want %d", d.DailyUsed, 95+10*written.Load())
			}
			rows, err := store.Usage(ctx, key.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			var got keys.UsageRow
			for _, r := range rows {
				if r.Method == NotificationMethod {
					got = r
				}
			}
			if got.Requests != written.Load() || got.Credits != 10*written.Load() || got.Network != "mainnet" {
				t.Fatalf("usage row %+v, want %d notifications of 10 credits", got, written.Load())
			}
		})
	}
}

// TestNotesOneRedisOperationPerKey: a flush spends 250 notifications of
// 50 connections of one key, and 1 of another key, in one Redis round trip
// per key.
func TestNotesOneRedisOperationPerKey(t *testing.T) {
	ctx := context.Background()
	lim := limiters(t)["redis"](t)
	notes := NewNotes(lim, nil, time.Hour)
	defer notes.Close(ctx)
	one := keyOn(t, 0, 1_000_000)
	o := *one
	o.ID = "another"
	other := &o
	var hs []*NoteAccount
	for range 50 {
		hs = append(hs, notes.Open(ctx, one, "mainnet", 10))
	}
	hs = append(hs, notes.Open(ctx, other, "mainnet", 10))
	// A round that opens a connection counts its handshake too: the flush is
	// judged on a round that opened none (the first opens the pool's).
	judged, rounds := false, 0
	for round := 0; round < 6 && !judged; round++ {
		rounds++
		before, dialed := roundTrips(t, lim), lim.client.PoolStats().Misses
		for i := range 250 {
			h := hs[i%50]
			if ok, _ := h.Reserve(one); !ok {
				t.Fatal("refused under the budget")
			}
			h.Written()
		}
		if ok, _ := hs[50].Reserve(other); !ok {
			t.Fatal("refused under the budget")
		}
		hs[50].Written()
		if n := roundTrips(t, lim) - before; n != 0 {
			t.Fatalf("%d Redis round trips while reserving, want none", n)
		}
		notes.Flush(ctx)
		if round == 0 || lim.client.PoolStats().Misses != dialed {
			continue
		}
		judged = true
		if n := roundTrips(t, lim) - before; n != 2 {
			t.Fatalf("%d Redis round trips for the flush, want 2 (one per key)", n)
		}
	}
	if !judged {
		t.Fatal("every round opened a Redis connection")
	}
	// Each round reserved 250 calls of 10 credits for the key.
	if d, want := lim.Take(ctx, one.ID, 0, Limits{Daily: 1_000_000}, Spend), int64(rounds*2500); d.DailyUsed != want {
		t.Fatalf("spent %d after %d rounds, want %d", d.DailyUsed, rounds, want)
	}
}

func roundTrips(t *testing.T, l *Limiter) uint64 {
	t.Helper()
	var m dto.Metric
	if err := l.metrics.redisRTT.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}
