package observe

import (
	"log/slog"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/telemetry"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Options choose what is observed.
type Options struct {
	// Metrics receives the series (required).
	Metrics *telemetry.Registry
	// AccessLog, when set, receives one line per HTTP request and one per
	// WebSocket call (access.go).
	AccessLog *slog.Logger
	// Tracer, when set, makes the spans (with Propagator for the W3C
	// traceparent in and out).
	Tracer     trace.Tracer
	Propagator propagation.TextMapPropagator
}

// Observer is the one observer of a service; it is safe for concurrent use.
type Observer struct {
	metrics *telemetry.Registry
	log     *slog.Logger
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator
}

// New makes an observer.
func New(o Options) *Observer {
	if o.Propagator == nil {
		o.Propagator = propagation.TraceContext{}
	}
	return &Observer{metrics: o.Metrics, log: o.AccessLog, tracer: o.Tracer, prop: o.Propagator}
}

// planOf is a key's plan label.
func planOf(k *keys.Key) string {
	if k == nil || k.Plan.Name == "" {
		return telemetry.PlanNone
	}
	return k.Plan.Name
}
