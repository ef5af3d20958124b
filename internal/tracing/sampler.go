package tracing

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// SamplerFromEnv is the sampler OTEL_TRACES_SAMPLER[_ARG] names (default
// parentbased_always_on), with one change unless trustClient is set
// (tracing.trust_client_sampling): a parent span that came from a client
// (a remote parent: its traceparent header) does not decide. Its trace id
// is still used, so that the client's trace and nodegate's correlate, but
// whether the request is sampled is drawn by nodegate: always_on samples
// it, always_off does not, traceidratio samples that fraction at random
// (not by the trace id, which the client chose). A client thus cannot have
// every request traced by setting the sampled flag, nor a 1% sampler
// bypassed with a trace id of zeros.
func SamplerFromEnv(getenv func(string) string, trustClient bool) (sdktrace.Sampler, error) {
	name := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER"))
	if name == "" {
		name = "parentbased_always_on"
	}
	base, parentBased := strings.CutPrefix(name, "parentbased_")
	ratio := 1.0
	var root sdktrace.Sampler
	switch base {
	case "always_on":
		root = sdktrace.AlwaysSample()
	case "always_off":
		root, ratio = sdktrace.NeverSample(), 0
	case "traceidratio":
		if arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG")); arg != "" {
			r, err := strconv.ParseFloat(arg, 64)
			if err != nil || r < 0 || r > 1 {
				return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a number from 0 to 1", arg)
			}
			ratio = r
		}
		root = sdktrace.TraceIDRatioBased(ratio)
	default:
		return nil, fmt.Errorf("OTEL_TRACES_SAMPLER=%q: nodegate samples with always_on, always_off, traceidratio or their parentbased_ forms", name)
	}
	if !parentBased {
		return root, nil
	}
	if trustClient {
		return sdktrace.ParentBased(root), nil
	}
	remote := drawn{ratio}
	return sdktrace.ParentBased(root, sdktrace.WithRemoteParentSampled(remote), sdktrace.WithRemoteParentNotSampled(remote)), nil
}

// drawn samples a fraction of spans at random, whatever their parent says
// (the parent's trace state is kept).
type drawn struct{ ratio float64 }

func (d drawn) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	decision := sdktrace.Drop
	if d.ratio >= 1 || d.ratio > 0 && rand.Float64() < d.ratio {
		decision = sdktrace.RecordAndSample
	}
	return sdktrace.SamplingResult{Decision: decision, Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState()}
}

func (d drawn) Description() string {
	return fmt.Sprintf("DrawnForRemoteParents{%g}", d.ratio)
}
