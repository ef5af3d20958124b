package keys

import (
	"testing"
	"time"
)

func TestLatencyBucket(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		want int
	}{
		{"zero counts as the first", 0, 0},
		{"under a microsecond", 300 * time.Nanosecond, 0},
		{"one microsecond", time.Microsecond, 0},
		{"two microseconds", 2 * time.Microsecond, 4},
		{"three microseconds", 3 * time.Microsecond, 6},
		{"four microseconds", 4 * time.Microsecond, 8},
		{"seven microseconds", 7 * time.Microsecond, 11},
		{"one millisecond", time.Millisecond, 9*4 + 3}, // 1000 µs in [896, 1024)
		{"1.024 ms starts an octave", 1024 * time.Microsecond, 10 * 4},
		{"one second", time.Second, 19*4 + 3}, // 1e6 µs in [917504, 1048576)
		{"past the last bucket", time.Hour, LatencyBuckets - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LatencyBucket(tc.d)
			if got != tc.want {
				t.Fatalf("LatencyBucket(%v) = %d, want %d", tc.d, got, tc.want)
			}
			if lo := LatencyBucketLow(got); tc.d >= time.Microsecond && got < LatencyBuckets-1 && (tc.d < lo || tc.d >= LatencyBucketLow(got+1)) {
				t.Fatalf("%v is not in bucket %d's bounds [%v, %v)", tc.d, got, lo, LatencyBucketLow(got+1))
			}
		})
	}
}

// Every duration falls in its bucket's bounds, and the bounds grow.
func TestLatencyBucketBounds(t *testing.T) {
	for d := time.Microsecond; d < 200*time.Second; d = d*9/8 + time.Microsecond {
		b := LatencyBucket(d)
		if d < LatencyBucketLow(b) || (b < LatencyBuckets-1 && d >= LatencyBucketLow(b+1)) {
			t.Fatalf("%v in bucket %d [%v, %v)", d, b, LatencyBucketLow(b), LatencyBucketLow(b+1))
		}
	}
	for i := 1; i < LatencyBuckets; i++ {
		if LatencyBucketLow(i) < LatencyBucketLow(i-1) {
			t.Fatalf("bucket %d starts at %v, before bucket %d (%v)", i, LatencyBucketLow(i), i-1, LatencyBucketLow(i-1))
		}
	}
}

func TestLatencyQuantile(t *testing.T) {
	within := func(got, want time.Duration) bool { return got >= want*7/8 && got <= want*9/8 }
	for _, tc := range []struct {
		name          string
		calls         map[time.Duration]int64
		p50, p95, p99 time.Duration
	}{
		{"empty", nil, 0, 0, 0},
		{"one call", map[time.Duration]int64{3 * time.Millisecond: 1}, 3 * time.Millisecond, 3 * time.Millisecond, 3 * time.Millisecond},
		{"a slow tail", map[time.Duration]int64{time.Millisecond: 90, 40 * time.Millisecond: 8, 2 * time.Second: 2}, time.Millisecond, 40 * time.Millisecond, 2 * time.Second},
		{"half and half", map[time.Duration]int64{100 * time.Microsecond: 50, 10 * time.Millisecond: 50}, 100 * time.Microsecond, 10 * time.Millisecond, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h LatencyHist
			for d, n := range tc.calls {
				for range n {
					h.Observe(d)
				}
			}
			for _, q := range []struct {
				q    float64
				want time.Duration
			}{{0.5, tc.p50}, {0.95, tc.p95}, {0.99, tc.p99}} {
				if got := h.Quantile(q.q); !within(got, q.want) {
					t.Fatalf("p%v = %v, want about %v", q.q*100, got, q.want)
				}
			}
		})
	}
}

// Two histograms merged answer as one that saw both's calls.
func TestLatencyMerge(t *testing.T) {
	var a, b, both LatencyHist
	for i := range 100 {
		d := time.Duration(i+1) * 37 * time.Microsecond
		if i%3 == 0 {
			a.Observe(d)
		} else {
			b.Observe(d)
		}
		both.Observe(d)
	}
	a.Merge(&b)
	if a != both {
		t.Fatalf("merged %v\nwant %v", a, both)
	}
}
