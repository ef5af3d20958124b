package upstream

import (
	"testing"
	"time"
)

// TestHedgeDelay: a call is hedged after the method's quantile on the
// fastest member in service that knows it (its own member's when that is
// the fastest); a method no member knows yet after the slowest method of
// the member whose slowest is fastest; nothing known: no timed hedge.
func TestHedgeDelay(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	type known struct {
		member int
		method string
		d      time.Duration
	}
	cases := []struct {
		name   string
		known  []known
		out    int // a member out of service (-1: none)
		method string
		want   time.Duration // the true latency the delay is the bucket of (0: none)
	}{
		{"its own member is the fastest", []known{{0, "eth_getBalance", 2 * ms}, {1, "eth_getBalance", 40 * ms}}, -1, "eth_getBalance", 2 * ms},
		{"members alike keep their own", []known{{0, "eth_getBalance", 3 * ms}, {1, "eth_getBalance", 2 * ms}}, -1, "eth_getBalance", 3 * ms},
		{"a member that stalls is hedged at the other's quantile", []known{{0, "eth_getBalance", 500 * ms}, {1, "eth_getBalance", 2 * ms}}, -1, "eth_getBalance", 2 * ms},
		{"its own member knows nothing of the method", []known{{1, "eth_getBalance", 3 * ms}}, -1, "eth_getBalance", 3 * ms},
		{"a member out of service does not count", []known{{0, "eth_getBalance", 40 * ms}, {1, "eth_getBalance", 2 * ms}}, 1, "eth_getBalance", 40 * ms},
		{"no member knows the method: the slowest known", []known{{0, "eth_getBalance", 2 * ms}, {0, "eth_getLogs", 9 * ms}, {1, "eth_getCode", 30 * ms}}, -1, "eth_call", 9 * ms},
		{"nothing known", nil, -1, "eth_call", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := NewPool("delay", PoolConfig{}, MemberConfig{Name: "a"}, MemberConfig{Name: "b"})
			h := p.hedges
			for _, k := range tc.known {
				l := h.lat[k.member].of(k.method, 0.99)
				for range latencyMinSamples * 2 {
					l.record(k.d)
				}
			}
			if tc.out >= 0 {
				p.members[tc.out].healthy.Store(false)
			}
			got := h.delay(0, tc.method, h.lat[0].of(tc.method, 0.99))
			want := time.Duration(0)
			if tc.want > 0 {
				want = bucketTop(bucketOf(tc.want))
			}
			if got != want {
				t.Fatalf("delay %v, want %v", got, want)
			}
		})
	}
}
