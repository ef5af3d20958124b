package ratelimit

import (
	"context"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// admitMethods applies a key's per-method rates (keys.MethodRate: calls
// per second of one method, in a bucket of its own) to a request's calls,
// before the key's credit budget: a request with more calls of a method
// than its rate admits is refused whole, naming the method. Refused calls
// (the key's allowlists) are not counted. A method's bucket is spent even
// when a later method, or the key's budget, refuses the request.
func (m *Meter) admitMethods(ctx context.Context, key *keys.Key, rates []keys.MethodRate, n Network, calls []Call, invalid int) *jsonrpc.Error {
	for i := range rates {
		r := &rates[i]
		var count int64
		for j := range calls {
			if !calls[j].Refused && calls[j].Method == r.Method {
				count++
			}
		}
		if count == 0 {
			continue
		}
		d := m.Limiter.Take(ctx, r.Subject, count, Limits{Rate: r.Rate}, Admit)
		if d.Outcome == OK {
			continue
		}
		m.decided(n, d.Outcome)
		m.refused(key, n, calls, invalid, d.Outcome)
		return refusal(d, r.Rate, 0, MethodRateLimit(r.Method))
	}
	return nil
}

// MethodRateLimit is the limit a refusal by a method's own rate names.
func MethodRateLimit(method string) string {
	return "method_rates." + method + " of this API key (calls per second)"
}
