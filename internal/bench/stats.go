package bench

import (
	"slices"
	"time"
)

// Latency summarises a run's latencies.
type Latency struct {
	P50, P90, P99, P999, Max, Mean time.Duration
}

// summarize sorts lat in place and reads its percentiles (nearest rank).
func summarize(lat []time.Duration) Latency {
	if len(lat) == 0 {
		return Latency{}
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return Latency{
		P50:  percentile(lat, 0.50),
		P90:  percentile(lat, 0.90),
		P99:  percentile(lat, 0.99),
		P999: percentile(lat, 0.999),
		Max:  lat[len(lat)-1],
		Mean: sum / time.Duration(len(lat)),
	}
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(p*float64(len(sorted))+0.999999999) - 1
	rank = max(0, min(rank, len(sorted)-1))
	return sorted[rank]
}
