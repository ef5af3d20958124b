package upstream_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
)

// TestRetryLatencyFigures measures (and logs, never asserts) what a retry
// after a refused connection adds: the same call through a pool whose
// first choice refuses connections, against a pool of the good node alone.
func TestRetryLatencyFigures(t *testing.T) {
	good := newFakeNode(t, 1, `"result":"ok"`)
	direct := upstream.NewPool("direct", upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, good.srv.URL))
	// FailThreshold keeps the dead node in service so that every call pays the retry.
	retry := upstream.NewPool("retry", upstream.PoolConfig{HeadInterval: time.Hour, FailThreshold: 1 << 30},
		httpMember(t, deadURL(t)), upstream.MemberConfig{Upstream: mustHTTP(t, good.srv.URL), Priority: 1})
	const n = 2000
	measure := func(p *upstream.Pool) (p50, p99 time.Duration) {
		d := make([]time.Duration, n)
		for i := range d {
			start := time.Now()
			if _, err := forward(context.Background(), p, callBody, true); err != nil {
				t.Fatal(err)
			}
			d[i] = time.Since(start)
		}
		slices.Sort(d)
		return d[n/2], d[n*99/100]
	}
	measure(direct) // warm connections
	d50, d99 := measure(direct)
	r50, r99 := measure(retry)
	t.Logf("direct p50 %v p99 %v; with a retry after a refused connection p50 %v p99 %v; added p99 %v", d50, d99, r50, r99, r99-d99)
}
