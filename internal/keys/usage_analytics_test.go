package keys

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// analyticsCounts reads back what the store holds of one key's analytics.
type analyticsCounts struct {
	minuteRequests int64
	latency        map[string]LatencyHist // span:at → histogram
	codes          map[string]int64       // span:at:code → calls
}

func readAnalytics(t *testing.T, s *sqlStore, keyID string) analyticsCounts {
	t.Helper()
	ctx := context.Background()
	out := analyticsCounts{latency: map[string]LatencyHist{}, codes: map[string]int64{}}
	if err := s.db.QueryRowContext(ctx, s.q("SELECT COALESCE(SUM(requests), 0) FROM nodegate_usage_minutes WHERE key_id = ?"), keyID).Scan(&out.minuteRequests); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, s.q("SELECT span, at, bucket, calls FROM nodegate_usage_latency WHERE key_id = ?"), keyID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var span, at string
		var bucket int
		var calls int64
		if err := rows.Scan(&span, &at, &bucket, &calls); err != nil {
			t.Fatal(err)
		}
		h := out.latency[span+":"+at]
		h[bucket] += calls
		out.latency[span+":"+at] = h
	}
	rows.Close()
	rows, err = s.db.QueryContext(ctx, s.q("SELECT span, at, code, calls FROM nodegate_usage_codes WHERE key_id = ?"), keyID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var span, at string
		var code int
		var calls int64
		if err := rows.Scan(&span, &at, &code, &calls); err != nil {
			t.Fatal(err)
		}
		out.codes[span+":"+at+":"+itoa(code)] += calls
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// Two replicas' flushes of the same minute add up bucket by bucket and
// code by code, in the minute and in its day.
func TestUsageAnalyticsMerge(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		replicaA, replicaB := open(), open()
		var fast, slow LatencyHist
		fast.Observe(2 * time.Millisecond)
		fast.Observe(2 * time.Millisecond)
		slow.Observe(2 * time.Millisecond)
		slow.Observe(300 * time.Millisecond)
		codesA, codesB := map[int]int64{-32000: 1}, map[int]int64{-32000: 2, -32005: 1}
		row := func(h *LatencyHist, codes *map[int]int64) UsageRow {
			return UsageRow{Day: "2026-11-27", Minute: "2026-11-27T10:04", KeyID: "k1", Network: "mainnet", Method: "eth_call",
				Requests: 2, Credits: 160, Latency: h, Codes: codes}
		}
		if err := replicaA.AddUsage(ctx, []UsageRow{row(&fast, &codesA)}); err != nil {
			t.Fatal(err)
		}
		if err := replicaB.AddUsage(ctx, []UsageRow{row(&slow, &codesB)}); err != nil {
			t.Fatal(err)
		}
		got := readAnalytics(t, replicaA.(*sqlStore), "k1")
		if got.minuteRequests != 4 {
			t.Fatalf("minute requests = %d, want 4", got.minuteRequests)
		}
		both := fast
		both.Merge(&slow)
		for _, at := range []string{"m:2026-11-27T10:04", "d:2026-11-27"} {
			if h := got.latency[at]; h != both {
				t.Fatalf("latency of %s = %v\nwant %v", at, h, both)
			}
			if n := got.codes[at+":"+itoa(-32000)]; n != 3 {
				t.Fatalf("code -32000 in %s: %d calls, want 3", at, n)
			}
			if n := got.codes[at+":"+itoa(-32005)]; n != 1 {
				t.Fatalf("code -32005 in %s: %d calls, want 1", at, n)
			}
		}
		if h := got.latency["m:2026-11-27T10:04"]; h.Quantile(0.99) < 250*time.Millisecond {
			t.Fatalf("p99 of the merged minute = %v: the slow replica's call is missing", h.Quantile(0.99))
		}
	})
}

// Minutes are deleted after MinuteRetention and days after DayRetention,
// judged by the newest minute flushed.
func TestUsageAnalyticsRetention(t *testing.T) {
	stores(t, func(t *testing.T, open func() Store) {
		ctx := context.Background()
		s := open().(*sqlStore)
		now := time.Date(2026, 11, 27, 10, 4, 0, 0, time.UTC)
		var h LatencyHist
		h.Observe(time.Millisecond)
		codes := map[int]int64{-32000: 1}
		at := func(t time.Time) UsageRow {
			return UsageRow{Day: UsageDay(t), Minute: UsageMinute(t), KeyID: "k1", Network: "n", Method: "m", Requests: 1, Latency: &h, Codes: &codes}
		}
		old := []time.Time{now.Add(-MinuteRetention - time.Minute), now.Add(-DayRetention - 24*time.Hour)}
		for _, o := range old {
			if err := s.AddUsage(ctx, []UsageRow{at(o)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AddUsage(ctx, []UsageRow{at(now)}); err != nil {
			t.Fatal(err)
		}
		got := readAnalytics(t, s, "k1")
		if got.minuteRequests != 1 {
			t.Fatalf("minute requests kept = %d, want 1 (only now's)", got.minuteRequests)
		}
		want := map[string]bool{"m:" + UsageMinute(now): true, "d:" + UsageDay(now): true, "d:" + UsageDay(old[0]): true}
		if len(got.latency) != len(want) {
			t.Fatalf("latency kept for %v, want %v", keysOf(got.latency), want)
		}
		for k := range got.latency {
			if !want[k] {
				t.Fatalf("latency kept for %s past its retention", k)
			}
		}
		if len(got.codes) != len(want) {
			t.Fatalf("codes kept: %v", got.codes)
		}
	})
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
