package keys

import (
	"math/bits"
	"time"
)

// LatencyBuckets is how many buckets a LatencyHist has.
//
// The buckets are fixed, so that two histograms (two replicas' minutes,
// or the minutes of a day) merge by adding counts bucket by bucket: the
// store keeps one row per bucket that a minute saw and adds to it.
// Bucket i covers [LatencyBucketLow(i), LatencyBucketLow(i+1)): four
// linear steps per power of two of microseconds (a bucket is at most 25%
// wider than its lower bound), from 1 µs up; the last bucket holds every
// call of 2^27 µs (about 134 s) or longer.
const LatencyBuckets = 4 * latencyOctaves

// latencyOctaves is how many powers of two of microseconds the buckets span.
const latencyOctaves = 28

// LatencyHist counts calls by how long nodegate took to answer them, in
// the fixed buckets of LatencyBucket. Its zero value is empty.
type LatencyHist [LatencyBuckets]int64

// LatencyBucket is the bucket of a call that took d (under 1 µs counts in
// the first, over the last bucket's low bound in the last).
func LatencyBucket(d time.Duration) int {
	us := uint64(max(d/time.Microsecond, 1))
	octave := bits.Len64(us) - 1 // us is in [2^octave, 2^(octave+1))
	if octave >= latencyOctaves {
		return LatencyBuckets - 1
	}
	var step uint64
	if octave >= 2 {
		step = (us >> (octave - 2)) & 3
	} else {
		step = (us << (2 - octave)) & 3
	}
	return octave*4 + int(step)
}

// LatencyBucketLow is the shortest duration bucket i holds.
func LatencyBucketLow(i int) time.Duration {
	octave, step := i/4, i%4
	base := time.Duration(1) << octave // µs
	return (base*4 + base*time.Duration(step)) * time.Microsecond / 4
}

// Observe counts one call that took d.
func (h *LatencyHist) Observe(d time.Duration) { h[LatencyBucket(d)]++ }

// Merge adds o's counts to h.
func (h *LatencyHist) Merge(o *LatencyHist) {
	for i, n := range o {
		h[i] += n
	}
}

// Count is how many calls h holds.
func (h *LatencyHist) Count() int64 {
	var n int64
	for _, c := range h {
		n += c
	}
	return n
}

// Quantile is the duration under which a fraction q (0 < q ≤ 1) of h's
// calls were answered: the middle of the bucket that holds the call of
// rank ⌈q·count⌉ (within 12.5% of the call's own time, by the buckets'
// width). An empty h is 0.
func (h *LatencyHist) Quantile(q float64) time.Duration {
	total := h.Count()
	if total == 0 {
		return 0
	}
	rank := int64(q * float64(total))
	if float64(rank) < q*float64(total) {
		rank++
	}
	rank = min(max(rank, 1), total)
	var seen int64
	for i, c := range h {
		seen += c
		if seen >= rank {
			return latencyBucketMiddle(i)
		}
	}
	return latencyBucketMiddle(LatencyBuckets - 1)
}

// latencyBucketMiddle is the duration that stands for bucket i's calls:
// the middle of its bounds (the last bucket: its low bound).
func latencyBucketMiddle(i int) time.Duration {
	lo := LatencyBucketLow(i)
	if i == LatencyBuckets-1 {
		return lo
	}
	return lo + (LatencyBucketLow(i+1)-lo)/2
}
