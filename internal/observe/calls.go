package observe

import (
	"context"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/jsonrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

var _ pipeline.Observer = (*Observer)(nil)

// WrapCall implements pipeline.Observer: every call's count and duration,
// its access log entry, and its span; the member that answered comes from
// the call's record (pipeline.Call.Member).
func (o *Observer) WrapCall(next pipeline.Handler) pipeline.Handler {
	return func(ctx context.Context, c *pipeline.Call) *jsonrpc.Response {
		start := time.Now()
		var span trace.Span
		if o.tracer != nil {
			ctx, span = o.tracer.Start(ctx, "call "+methods.Label(c.Req.Method), trace.WithSpanKind(trace.SpanKindInternal))
		}
		var entry *call
		if o.log != nil {
			entry = &call{}
			ctx = context.WithValue(ctx, callKey{}, entry)
		}
		resp := next(ctx, c)
		d := time.Since(start)
		var rpcErr *jsonrpc.Error
		if resp != nil {
			rpcErr = resp.Err
		}
		code := telemetry.Classify(rpcErr)
		network := c.Network.Name
		o.metrics.ObserveCall(network, c.Req.Method, planOf(c.Key), code, d)
		if span != nil {
			endCallSpan(span, c, code, rpcErr)
		}
		keyID := ""
		if c.Key != nil {
			keyID = c.Key.ID
		}
		if entry != nil {
			entry.method, entry.code, entry.duration = methods.Label(c.Req.Method), code, d
			// The member that answered, from the call's record: also when
			// an upstream batch or a partner did (the attempt observer saw
			// the last attempt made under this call's context).
			if m := c.Member(); m != "" {
				entry.upstream = m
			}
		}
		if req := requestFrom(ctx); req != nil && c.Client.Transport == "http" {
			req.note(network, keyID, entry, c.Pos)
		} else if entry != nil {
			o.logCall(ctx, c, keyID, entry)
		}
		return resp
	}
}

func endCallSpan(span trace.Span, c *pipeline.Call, code telemetry.Code, e *jsonrpc.Error) {
	span.SetAttributes(
		attribute.String("rpc.system", "jsonrpc"),
		attribute.String("rpc.method", methods.Label(c.Req.Method)),
		attribute.String("nodegate.network", c.Network.Name),
		attribute.String("nodegate.outcome", code.String()),
	)
	if c.Key != nil {
		span.SetAttributes(attribute.String("nodegate.key_id", c.Key.ID))
	}
	if m := c.Member(); m != "" {
		span.SetAttributes(attribute.String("nodegate.upstream", m))
	}
	if e != nil {
		span.SetAttributes(attribute.Int("rpc.jsonrpc.error_code", e.Code))
		if code != telemetry.CodeNode {
			span.SetStatus(codes.Error, code.String())
		}
	}
	span.End()
}

// WrapStage implements pipeline.Observer: a span per stage when tracing
// is on (the stage's span covers the stages after it); nothing otherwise.
func (o *Observer) WrapStage(name string, next pipeline.Handler) pipeline.Handler {
	if o.tracer == nil {
		return next
	}
	spanName := "stage " + name
	return func(ctx context.Context, c *pipeline.Call) *jsonrpc.Response {
		ctx, span := o.tracer.Start(ctx, spanName)
		resp := next(ctx, c)
		if resp != nil && resp.Err != nil {
			span.SetAttributes(attribute.Int("rpc.jsonrpc.error_code", resp.Err.Code))
		}
		span.End()
		return resp
	}
}
