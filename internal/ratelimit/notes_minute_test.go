package ratelimit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// rowSink keeps the usage rows flushed to it.
type rowSink struct {
	mu   sync.Mutex
	rows []keys.UsageRow
}

func (s *rowSink) AddUsage(_ context.Context, rows []keys.UsageRow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, rows...)
	return nil
}

// TestNotesCountedPerMinute: notifications flushed in a minute reach the
// usage records with that minute (so the analytics' hour and day views
// show them, not only the day's record), and reserving and writing one
// notification allocates nothing.
func TestNotesCountedPerMinute(t *testing.T) {
	ctx := context.Background()
	sink := &rowSink{}
	usage := NewUsage(sink, time.Hour)
	notes := NewNotes(nil, usage, time.Hour)
	at := time.Date(2026, 11, 27, 10, 4, 30, 0, time.UTC)
	notes.now = func() time.Time { return at }
	key := keyOn(t, 0, 0)
	h := notes.Open(ctx, key, "mainnet", 10)
	defer h.Close()
	for range 7 {
		if ok, _ := h.Reserve(key); !ok {
			t.Fatal("refused")
		}
		h.Written()
	}
	if n := testing.AllocsPerRun(1000, func() { h.Reserve(key); h.Written() }); n != 0 {
		t.Errorf("%v allocations per notification, want 0", n)
	}
	notes.Flush(ctx)
	if err := usage.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var got []keys.UsageRow
	for _, r := range sink.rows {
		if r.Method == NotificationMethod {
			got = append(got, r)
		}
	}
	if len(got) != 1 || got[0].Minute != "2026-11-27T10:04" || got[0].Day != "2026-11-27" || got[0].Requests != 1008 || got[0].Credits != 10080 {
		t.Fatalf("notification rows %+v, want one of 1008 notifications (7, 1 warm-up and 1000 measured; 10080 credits) in minute 2026-11-27T10:04", got)
	}
}

// BenchmarkNotification is one notification reserved and written, and
// (flush) a flush of one key's notifications into the usage records.
func BenchmarkNotification(b *testing.B) {
	ctx := context.Background()
	usage := NewUsage(&rowSink{}, time.Hour)
	defer usage.Close(ctx)
	notes := NewNotes(nil, usage, time.Hour)
	defer notes.Close(ctx)
	t := &testing.T{}
	key := keyOn(t, 0, 0)
	h := notes.Open(ctx, key, "mainnet", 10)
	defer h.Close()
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.Reserve(key)
			h.Written()
		}
	})
	b.Run("flush", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.Reserve(key)
			h.Written()
			notes.Flush(ctx)
		}
	})
}
