package tracing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestClientSampling: a server on loopback reads the client's traceparent
// as nodegate's middleware does and starts its span with SamplerFromEnv.
// Unless tracing.trust_client_sampling is set, the client's sampled flag
// does not decide (nor, for a ratio, its trace id), while its trace id is
// kept for correlation.
func TestClientSampling(t *testing.T) {
	const n = 200
	tests := []struct {
		name, sampler, arg string
		trust              bool
		traceID            func(i int) string
		flags              string // "" for no traceparent
		wantMin, wantMax   int    // sampled requests of n
	}{
		{"sampled flag, 0% sampler, not trusted", "parentbased_traceidratio", "0", false, randomID, "01", 0, 0},
		{"sampled flag, 0% sampler, trusted", "parentbased_traceidratio", "0", true, randomID, "01", n, n},
		{"sampled flag, 1% sampler, not trusted", "parentbased_traceidratio", "0.01", false, randomID, "01", 0, 20},
		{"low trace ids, 1% sampler, not trusted", "parentbased_traceidratio", "0.01", false, lowID, "00", 0, 20},
		{"not-sampled flag, always on, not trusted", "parentbased_always_on", "", false, randomID, "00", n, n},
		{"not-sampled flag, always on, trusted", "parentbased_always_on", "", true, randomID, "00", 0, 0},
		{"no traceparent, always on", "", "", false, nil, "", n, n},
		{"sampled flag, always off, not trusted", "parentbased_always_off", "", false, randomID, "01", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"OTEL_TRACES_SAMPLER": tc.sampler, "OTEL_TRACES_SAMPLER_ARG": tc.arg}
			sampler, err := SamplerFromEnv(func(k string) string { return env[k] }, tc.trust)
			if err != nil {
				t.Fatal(err)
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			tracer, prop := tp.Tracer("test"), propagation.TraceContext{}
			var mu sync.Mutex
			sampled, kept := 0, 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
				parent := trace.SpanContextFromContext(ctx)
				_, span := tracer.Start(ctx, "POST /v3", trace.WithSpanKind(trace.SpanKindServer))
				sc := span.SpanContext()
				span.End()
				mu.Lock()
				if sc.IsSampled() {
					sampled++
				}
				if parent.IsValid() && sc.TraceID() == parent.TraceID() {
					kept++
				}
				mu.Unlock()
			}))
			t.Cleanup(srv.Close)
			for i := range n {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
				if tc.flags != "" {
					req.Header.Set("traceparent", fmt.Sprintf("00-%s-%016x-%s", tc.traceID(i), i+1, tc.flags))
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			if sampled < tc.wantMin || sampled > tc.wantMax {
				t.Errorf("%d of %d requests sampled, want %d to %d", sampled, n, tc.wantMin, tc.wantMax)
			}
			if tc.flags != "" && kept != n {
				t.Errorf("%d of %d spans kept the client's trace id, want all", kept, n)
			}
		})
	}
}

func randomID(i int) string {
	return fmt.Sprintf("%016x%016x", 0x4bf92f3577b34da6+uint64(i)*0x9e3779b97f4a7c15, uint64(i+1)*0xbf58476d1ce4e5b9)
}

// lowID: trace ids a ratio-by-trace-id sampler always takes.
func lowID(i int) string { return fmt.Sprintf("%032x", i+1) }
