package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Tracing is a running trace pipeline: spans are batched and exported by
// OTLP/HTTP until Shutdown.
type Tracing struct {
	provider *sdktrace.TracerProvider
	// Tracer makes nodegate's spans; Propagator reads and writes the W3C
	// traceparent (and baggage).
	Tracer     trace.Tracer
	Propagator propagation.TextMapPropagator
}

// Enabled reports whether the environment asks for traces, and refuses
// what nodegate cannot do:
//
//   - OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none: off;
//   - OTEL_TRACES_EXPORTER=otlp: on;
//   - OTEL_TRACES_EXPORTER unset: on when OTEL_EXPORTER_OTLP_ENDPOINT or
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, off otherwise;
//   - any other exporter, or an OTLP protocol other than http/protobuf
//     (OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL): an error.
func Enabled(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	on := false
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return false, nil
	case "otlp":
		on = true
	case "":
		on = getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	default:
		return false, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: nodegate exports traces with otlp only (or none)", exp)
	}
	if !on {
		return false, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" && p != "http/protobuf" {
			return false, fmt.Errorf("%s=%q: nodegate exports OTLP over HTTP only (http/protobuf)", name, p)
		}
	}
	return true, nil
}

// FromEnv starts tracing when the environment asks for it (see Enabled);
// nil, nil when it does not. The exporter reads its endpoint, headers,
// timeout and compression from OTEL_EXPORTER_OTLP_*, the batch processor
// OTEL_BSP_*, the sampler OTEL_TRACES_SAMPLER[_ARG] (default: parent-based,
// always on; a client's sampled flag decides only with trustClient:
// SamplerFromEnv) and the resource OTEL_SERVICE_NAME (default "nodegate")
// and OTEL_RESOURCE_ATTRIBUTES.
func FromEnv(ctx context.Context, version string, trustClient bool) (*Tracing, error) {
	on, err := Enabled(os.Getenv)
	if err != nil || !on {
		return nil, err
	}
	sampler, err := SamplerFromEnv(os.Getenv, trustClient)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("otlp trace exporter: %w", err)
	}
	attrs := []attribute.KeyValue{semconv.ServiceName("nodegate")}
	if version != "" {
		attrs = append(attrs, semconv.ServiceVersion(version))
	}
	res, err := resource.Merge(resource.NewSchemaless(attrs...), resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithSampler(sampler))
	return &Tracing{
		provider:   tp,
		Tracer:     tp.Tracer("github.com/nodegate/nodegate"),
		Propagator: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}, nil
}

// Shutdown exports the spans still buffered and stops.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}
