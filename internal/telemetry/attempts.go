package telemetry

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
	"github.com/prometheus/client_golang/prometheus"
)

// attemptCache keeps the upstream duration children per pool and member.
type attemptCache struct {
	mu   sync.RWMutex
	durs map[attemptKey]prometheus.Observer
}

type attemptKey struct{ network, upstream string }

func (c *attemptCache) init() { c.durs = map[attemptKey]prometheus.Observer{} }

// ObserveAttempt records one attempt on an upstream of a pool (network is
// the pool's name) and, when it failed, its error class.
func (r *Registry) ObserveAttempt(network, member string, d time.Duration, resp *jsonrpc.Response, err error) {
	k := attemptKey{network: network, upstream: member}
	c := &r.attempts
	c.mu.RLock()
	obs, ok := c.durs[k]
	c.mu.RUnlock()
	if !ok {
		obs = r.UpstreamDuration.WithLabelValues(network, member)
		c.mu.Lock()
		c.durs[k] = obs
		c.mu.Unlock()
	}
	obs.Observe(d.Seconds())
	if class := ErrorClass(resp, err); class != "" {
		r.UpstreamErrors.WithLabelValues(network, member, class).Inc()
	}
}

// ErrorClass is the class of a failed attempt ("" when it succeeded):
// timeout, connect, http_5xx, http_429, http_status, bad_response,
// node_fault (an answer that says the node lags or is overloaded),
// cancelled (the client went away) or other.
func ErrorClass(resp *jsonrpc.Response, err error) string {
	if err == nil {
		switch {
		case resp == nil || resp.Err == nil:
			return ""
		case upstream.IsNodeFaultAnswer(resp.Err):
			return "node_fault"
		case resp.Err.Code == jsonrpc.CodeUnauthorized:
			return "timeout" // go-ethereum's -32002 "request timed out": the node's own time limit
		}
		return ""
	}
	var ue *upstream.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return "timeout"
	case errors.As(err, &ue) && ue.Status == 429:
		return "http_429"
	case errors.As(err, &ue) && ue.Status >= 500:
		return "http_5xx"
	case errors.As(err, &ue) && ue.Status != 0:
		return "http_status"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	var oe *net.OpError
	if errors.As(err, &oe) || strings.Contains(err.Error(), "dial") || strings.Contains(err.Error(), "connection") {
		return "connect"
	}
	if errors.As(err, &ue) {
		return "bad_response"
	}
	return "other"
}
