package observe

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/pipeline"
	"go.opentelemetry.io/otel/trace"
)

// AccessMessage is the message of every access log line.
const AccessMessage = "access"

// logRequest writes an HTTP request's access log line: one line per
// request, with its calls' methods and outcomes in order (a batch's lists).
// The key appears by id only; methods through methods.Label.
func (o *Observer) logRequest(ctx context.Context, r *http.Request, req *request, sw *statusWriter, d time.Duration) {
	req.mu.Lock()
	calls := slices.DeleteFunc(req.calls, func(c *call) bool { return c == nil }) // a slot no call filled
	attrs := make([]slog.Attr, 0, 14)
	attrs = append(attrs,
		slog.String("transport", "http"),
		slog.String("network", req.network),
		slog.String("key_id", req.keyID),
		slog.Int("status", statusOf(sw)),
		slog.Int("calls", len(calls)),
	)
	switch len(calls) {
	case 0:
		attrs = append(attrs, slog.String("outcome", outcomeOfStatus(sw)))
	case 1:
		c := calls[0]
		attrs = append(attrs, slog.String("method", c.method), slog.String("outcome", c.code.String()), slog.String("upstream", c.upstream))
	default:
		ms, outs, ups := make([]string, len(calls)), make([]string, len(calls)), make([]string, 0, 2)
		for i, c := range calls {
			ms[i], outs[i] = c.method, c.code.String()
			if c.upstream != "" && !slices.Contains(ups, c.upstream) {
				ups = append(ups, c.upstream)
			}
		}
		attrs = append(attrs, slog.Any("methods", ms), slog.Any("outcomes", outs), slog.String("upstream", strings.Join(ups, ",")))
	}
	req.mu.Unlock()
	attrs = append(attrs,
		slog.Float64("duration_ms", ms(d)),
		slog.Int64("bytes_in", max(r.ContentLength, 0)),
		slog.Int64("bytes_out", sw.bytes),
		slog.String("remote", r.RemoteAddr),
	)
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	o.log.LogAttrs(ctx, slog.LevelInfo, AccessMessage, attrs...)
}

// logCall writes the access log line of one call that came outside an
// HTTP request (a WebSocket message's call).
func (o *Observer) logCall(ctx context.Context, c *pipeline.Call, keyID string, e *call) {
	network := ""
	if c.Network != nil {
		network = c.Network.Name
	}
	attrs := []slog.Attr{
		slog.String("transport", c.Client.Transport),
		slog.String("network", network),
		slog.String("key_id", keyID),
		slog.Int("calls", 1),
		slog.String("method", e.method),
		slog.String("outcome", e.code.String()),
		slog.String("upstream", e.upstream),
		slog.Float64("duration_ms", ms(e.duration)),
		slog.String("remote", c.Client.Remote),
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
	}
	o.log.LogAttrs(ctx, slog.LevelInfo, AccessMessage, attrs...)
}

func statusOf(sw *statusWriter) int {
	if sw.status == 0 {
		return http.StatusOK
	}
	return sw.status
}

func outcomeOfStatus(sw *statusWriter) string {
	return classifyStatus(statusOf(sw))
}

// ms is a duration in milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
