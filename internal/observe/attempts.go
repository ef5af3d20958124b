package observe

import (
	"context"
	"time"

	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
	"github.com/nodegate/nodegate/jsonrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

var _ upstream.Observer = (*Observer)(nil)

// StartAttempt implements upstream.Observer: with tracing, a client span
// for the attempt, whose traceparent the upstream request carries.
func (o *Observer) StartAttempt(ctx context.Context, pool, member string) context.Context {
	if o.tracer == nil {
		return ctx
	}
	ctx, _ = o.tracer.Start(ctx, "upstream "+member, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("nodegate.network", pool), attribute.String("nodegate.upstream", member)))
	var carrier propagation.MapCarrier = map[string]string{}
	o.prop.Inject(ctx, carrier)
	for k, v := range carrier {
		ctx = transport.WithRequestHeader(ctx, k, v)
	}
	return ctx
}

// EndAttempt implements upstream.Observer: the attempt's duration and
// error class, the upstream of the call's access log entry, the span's end.
func (o *Observer) EndAttempt(ctx context.Context, pool, member string, d time.Duration, resp *jsonrpc.Response, err error) {
	o.metrics.ObserveAttempt(pool, member, d, resp, err)
	if c := callFrom(ctx); c != nil {
		c.upstream = member
	}
	if o.tracer == nil {
		return
	}
	span := trace.SpanFromContext(ctx)
	if class := telemetry.ErrorClass(resp, err); class != "" {
		span.SetAttributes(attribute.String("nodegate.error_class", class))
		span.SetStatus(codes.Error, class)
	}
	span.End()
}
