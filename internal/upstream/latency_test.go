package upstream

import (
	"testing"
	"time"
)

// TestLatencyQuantile: the quantile is the top of the bucket that holds it
// (within 25 % above the true value), unknown before latencyMinSamples
// answers, and follows the member as it changes (the old answers halve
// away every latencyWindow answers).
func TestLatencyQuantile(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	cases := []struct {
		name    string
		samples []time.Duration // recorded in order, cycled n times
		n       int
		want    time.Duration // the true quantile (0: unknown)
	}{
		{"too few answers", []time.Duration{ms}, latencyMinSamples - 1, 0},
		{"one latency", []time.Duration{3 * ms}, 100, 3 * ms},
		{"4 % slow calls are not the p95", append(repeat(ms, 24), 500*ms), 20, ms},
		{"10 % slow calls set the p95", append(repeat(ms, 9), 500*ms), 20, 500 * ms},
		{"a member that got slower", append(repeat(ms, 4*latencyWindow), repeat(40*ms, 2*latencyWindow)...), 1, 40 * ms},
		{"beyond the last bucket", []time.Duration{time.Hour}, 100, bucketTop(latencyBuckets - 1)},
		{"below the first bucket", []time.Duration{time.Microsecond}, 100, bucketTop(0)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := &latencyQuantile{q: 0.95}
			for range tc.n {
				for _, d := range tc.samples {
					l.record(d)
				}
			}
			l.mu.Lock()
			got := l.quantileLocked()
			l.mu.Unlock()
			if tc.want == 0 || tc.want >= bucketTop(latencyBuckets-1) {
				if got != tc.want {
					t.Fatalf("quantile %v, want %v", got, tc.want)
				}
				return
			}
			if got < tc.want || got > tc.want*5/4+5*time.Microsecond {
				t.Fatalf("quantile %v, want %v within its bucket", got, tc.want)
			}
		})
	}
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// TestBucketsCoverTheirLatencies: every latency falls in the bucket whose
// top is the first above it.
func TestBucketsCoverTheirLatencies(t *testing.T) {
	t.Parallel()
	for d := time.Microsecond; d < time.Minute; d = d*9/8 + time.Microsecond {
		i := bucketOf(d)
		if d >= bucketTop(i) || (i > 0 && d < bucketTop(i-1)) {
			t.Fatalf("%v in bucket %d: [%v, %v)", d, i, bucketTop(max(i-1, 0)), bucketTop(i))
		}
	}
}

// TestRecordAllocatesNothing: counting an answer and reading the delay
// allocate nothing (they are on every hedged-eligible call).
func TestRecordAllocatesNothing(t *testing.T) {
	var ml methodLatencies
	ml.of("eth_getBalance", 0.95)
	if n := testing.AllocsPerRun(1000, func() {
		l := ml.of("eth_getBalance", 0.95)
		l.record(time.Millisecond)
		_ = l.quantile()
	}); n != 0 {
		t.Fatalf("%v allocations a call", n)
	}
}
