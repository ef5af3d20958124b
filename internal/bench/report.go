package bench

import (
	"encoding/json"
	"fmt"
	"io"
)

// Comparison is a run against a URL and the same load against a second
// URL right after (typically the gateway, then the upstream directly).
type Comparison struct {
	Runs []*Result `json:"runs"`
	// ThroughputRatio is the first run's calls/s over the second's.
	ThroughputRatio float64 `json:"throughput_ratio,omitempty"`
	// P99Ratio is the first run's p99 over the second's.
	P99Ratio float64 `json:"p99_ratio,omitempty"`
}

// Compare fills the ratios of a two-run comparison.
func Compare(runs ...*Result) *Comparison {
	c := &Comparison{Runs: runs}
	if len(runs) == 2 && runs[1].CallsPerS > 0 && runs[1].Latency.P99 > 0 {
		c.ThroughputRatio = runs[0].CallsPerS / runs[1].CallsPerS
		c.P99Ratio = runs[0].Latency.P99 / runs[1].Latency.P99
	}
	return c
}

// WriteJSON prints the comparison as one JSON document, for scripts.
func (c *Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// WriteText prints the comparison for people.
func (c *Comparison) WriteText(w io.Writer) {
	for _, r := range c.Runs {
		r.WriteText(w)
	}
	if len(c.Runs) == 2 {
		fmt.Fprintf(w, "ratio first/second: throughput %.3f, p99 latency %.2f\n", c.ThroughputRatio, c.P99Ratio)
	}
}

// WriteText prints one run.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s\n  mix %s, concurrency %d, batch %d, %.1fs\n", r.URL, r.Mix, r.Concurrency, r.Batch, r.Elapsed)
	fmt.Fprintf(w, "  %d requests (%.0f req/s), %d calls (%.0f calls/s)\n", r.Requests, r.RPS, r.Calls, r.CallsPerS)
	l := r.Latency
	fmt.Fprintf(w, "  latency µs: p50 %.0f  p90 %.0f  p99 %.0f  p99.9 %.0f  max %.0f  mean %.0f\n", l.P50, l.P90, l.P99, l.P999, l.Max, l.Mean)
	e := r.Errors
	fmt.Fprintf(w, "  errors: transport %d, http %d, malformed %d, json-rpc error objects %d\n", e.Transport, e.HTTP, e.Malformed, e.RPC)
	if e.First != "" {
		fmt.Fprintf(w, "  first error: %s\n", e.First)
	}
	if s := r.ServerCPU; s != nil {
		fmt.Fprintf(w, "  server cpu: %.2fs (user %.2fs, system %.2fs; %.2f cores), %.1f µs per call\n", s.Seconds, s.UserSeconds, s.SystemSeconds, s.Cores, s.MicrosPerCall)
	}
	fmt.Fprintf(w, "  load generator cpu: %.2fs (%.2f cores), %.1f µs per call\n", r.LoadCPU.Seconds, r.LoadCPU.Cores, r.LoadCPU.MicrosPerCall)
}
