package observe

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"context"
	"github.com/nodegate/nodegate/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Middleware observes the JSON-RPC requests of a client listener
// (POST /v3/…): requests in flight, requests refused before any of their
// calls was read (counted once, method "(invalid)"), the access log line
// and the request's span, which continues the client's W3C traceparent.
// network names the network a Host is routed to, for refusals ("" when
// none). Other paths (/health, WebSocket upgrades) pass through.
func (o *Observer) Middleware(network func(host string) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v3") || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		o.metrics.InFlight.Inc()
		req := getRequest()
		ctx := context.WithValue(r.Context(), requestKey{}, req)
		var span trace.Span
		if o.tracer != nil {
			ctx = o.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
			ctx, span = o.tracer.Start(ctx, "POST /v3", trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("url.path", "/v3/<key>")))
		}
		sw := getWriter(w)
		next.ServeHTTP(sw, r.WithContext(ctx))
		d := time.Since(start)
		o.metrics.InFlight.Dec()
		if req.counted.Load() == 0 && !req.metered.Load() {
			req.network = network(r.Host)
			if req.network == "" {
				req.network = telemetry.PlanNone
			}
			o.metrics.ObserveCall(req.network, "", telemetry.PlanNone, telemetry.ClassifyStatus(sw.status), 0)
		}
		if o.log != nil {
			o.logRequest(ctx, r, req, sw, d)
		}
		if span != nil {
			span.SetAttributes(attribute.Int("http.response.status_code", sw.status), attribute.String("nodegate.network", req.network))
			if req.keyID != "" {
				span.SetAttributes(attribute.String("nodegate.key_id", req.keyID))
			}
			if sw.status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(sw.status))
			}
			span.End()
		}
		putWriter(sw)
		putRequest(req)
	})
}

// statusWriter remembers the status and counts the bytes written.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

var writerPool = sync.Pool{New: func() any { return new(statusWriter) }}

func getWriter(w http.ResponseWriter) *statusWriter {
	sw := writerPool.Get().(*statusWriter)
	sw.ResponseWriter, sw.status, sw.bytes = w, 0, 0
	return sw
}

func putWriter(sw *statusWriter) {
	sw.ResponseWriter = nil
	writerPool.Put(sw)
}

func classifyStatus(status int) string { return telemetry.ClassifyStatus(status).String() }
