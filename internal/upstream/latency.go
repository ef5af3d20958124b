package upstream

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// A method's recent latency on one member, for the hedge delay (hedge.go):
// a histogram of the last answers on a log scale (four buckets an octave
// from 20 µs to about a minute, so a quantile is known within 25 %), halved
// every latencyWindow answers so that it follows the member as it is
// now. Recording and reading allocate nothing; the quantile is worked out
// again every latencyRefresh answers and read with one atomic load.

const (
	// latencyWindow is how many answers the histogram holds before it is
	// halved: the quantile is of roughly the last latencyWindow answers.
	latencyWindow = 256
	// latencyRefresh is how many answers pass between two computations of
	// the quantile.
	latencyRefresh = 8
	// latencyMinSamples is how many answers a histogram needs before its
	// quantile is trusted (before that a call is not hedged for its delay).
	latencyMinSamples = 16
	// latencyBase is four times the width of the first bucket (whose upper
	// bound is 20 µs).
	latencyBase = 16 * time.Microsecond
	// latencyBuckets: 4 an octave, 22 octaves above latencyBase.
	latencyBuckets = 4 * 22
	// maxLatencyMethods bounds the methods tracked on one member (a client
	// names unlisted methods as it likes): past it they share one histogram.
	maxLatencyMethods = 256
)

// latencyQuantile is one method's latency histogram on one member.
type latencyQuantile struct {
	q float64 // the quantile kept (0 < q < 1)

	mu     sync.Mutex
	counts [latencyBuckets]uint32
	total  uint32 // answers counted in counts
	since  uint32 // answers since the quantile was last worked out

	// value is the quantile in nanoseconds, 0 while fewer than
	// latencyMinSamples answers are known.
	value atomic.Int64
}

// bucketOf is the bucket of a latency d.
func bucketOf(d time.Duration) int {
	x := uint64(d / (latencyBase / 4)) // in quarters of the first bucket
	if x < 4 {
		return 0
	}
	l := bits.Len64(x) // x in [2^(l-1), 2^l)
	i := 4*(l-3) + int((x>>(l-3))&3)
	return min(i, latencyBuckets-1)
}

// bucketTop is the upper bound of bucket i.
func bucketTop(i int) time.Duration {
	octave, quarter := i/4, i%4
	return latencyBase / 4 * time.Duration(uint64(4+quarter+1)<<octave)
}

// record counts one answer of latency d.
func (l *latencyQuantile) record(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[bucketOf(d)]++
	l.total++
	l.since++
	if l.total >= latencyWindow {
		var t uint32
		for i := range l.counts {
			l.counts[i] /= 2
			t += l.counts[i]
		}
		l.total = t
	}
	if l.since >= latencyRefresh {
		l.since = 0
		l.value.Store(int64(l.quantileLocked()))
	}
}

// quantileLocked is the upper bound of the bucket holding the q-quantile
// (0 while fewer than latencyMinSamples answers are counted).
func (l *latencyQuantile) quantileLocked() time.Duration {
	if l.total < latencyMinSamples {
		return 0
	}
	want := uint32(l.q*float64(l.total) + 0.5)
	var seen uint32
	for i, n := range l.counts {
		seen += n
		if seen >= want && n > 0 {
			return bucketTop(i)
		}
	}
	return bucketTop(latencyBuckets - 1)
}

// quantile is the last worked-out quantile (0: not known yet).
func (l *latencyQuantile) quantile() time.Duration { return time.Duration(l.value.Load()) }

// methodLatencies are one member's histograms by method: read without a
// lock (a map replaced whole when a method is added).
type methodLatencies struct {
	byMethod atomic.Pointer[map[string]*latencyQuantile]
	mu       sync.Mutex       // held to add a method
	other    *latencyQuantile // the methods past maxLatencyMethods
}

// of is method's histogram, made at its first answer.
func (ml *methodLatencies) of(method string, q float64) *latencyQuantile {
	if m := ml.byMethod.Load(); m != nil {
		if l, ok := (*m)[method]; ok {
			return l
		}
	}
	ml.mu.Lock()
	defer ml.mu.Unlock()
	old := ml.byMethod.Load()
	if old != nil {
		if l, ok := (*old)[method]; ok {
			return l
		}
		if len(*old) >= maxLatencyMethods {
			if ml.other == nil {
				ml.other = &latencyQuantile{q: q}
			}
			return ml.other
		}
	}
	next := make(map[string]*latencyQuantile, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			next[k] = v
		}
	}
	l := &latencyQuantile{q: q}
	next[method] = l
	ml.byMethod.Store(&next)
	return l
}

// lookup is method's histogram, nil when none is made yet.
func (ml *methodLatencies) lookup(method string) *latencyQuantile {
	if m := ml.byMethod.Load(); m != nil {
		return (*m)[method]
	}
	return nil
}

// slowest is the highest quantile known among the member's methods (0:
// none known).
func (ml *methodLatencies) slowest() time.Duration {
	var d time.Duration
	if m := ml.byMethod.Load(); m != nil {
		for _, l := range *m {
			d = max(d, l.quantile())
		}
	}
	return d
}

func lenOf(m *map[string]*latencyQuantile) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
