package observe_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/logging"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/observe"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestEveryCallNamesItsUpstream: the member that answered a call reaches
// the call's access log entry and its span also when the call went in an
// upstream batch (whose attempt runs under the batch's context, not the
// call's), and the tag resolution of an eth_getLogs is a read of its own
// (the internalRead stage's span, the parent of its upstream attempt).
func TestEveryCallNamesItsUpstream(t *testing.T) {
	var batches atomic.Int64 // upstream batches node-a received
	up := upstream.Func{ID: "node-a", Fn: func(_ context.Context, body []byte) ([]byte, error) {
		if bytes.HasPrefix(body, []byte("[")) {
			batches.Add(1)
		}
		if bytes.Contains(body, []byte(`"eth_getLogs"`)) {
			return []byte(`{"jsonrpc":"2.0","id":1,"result":[]}`), nil
		}
		return bench.AnswerStatic(nil, body), nil
	}}
	pool := upstream.NewPool("test", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: up})
	n := &pipeline.Network{Name: "test", Methods: methods.NewTable(methods.FamilyEVM), Upstream: pool, Pool: pool}
	s := gatewaytest.Server(t, n)
	var logs testenv.LogBuffer
	logger, err := logging.New(config.Log{Format: "json", Output: &logs})
	if err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	obs := observe.New(observe.Options{Metrics: telemetry.New(), AccessLog: logger, Tracer: tp.Tracer("test")})
	pool.Observer = obs
	s.Pipeline = pipeline.Build(pipeline.Options{Observer: obs})
	s.Metering = obs.Metering(s.Metering)
	srv := httptest.NewServer(obs.Middleware(func(string) string { return "test" }, s.Handler()))
	t.Cleanup(srv.Close)
	url := srv.URL + "/v3/" + gatewaytest.Key

	if st, body := post(t, url, string(gatewaytest.HashBodies(1, 3)[0]), nil); st != 200 || strings.Count(body, `"result"`) != 3 {
		t.Fatalf("batch: %d %s", st, body)
	}
	if batches.Load() == 0 {
		t.Fatal("the batch's calls did not go upstream as a batch")
	}
	getLogs := `{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"0x5daf00","toBlock":"latest"}]}`
	if st, body := post(t, url, getLogs, nil); st != 200 || !strings.Contains(body, `"result":[]`) {
		t.Fatalf("eth_getLogs: %d %s", st, body)
	}

	testenv.WaitFor(t, 10*time.Second, "two access lines", func() bool { return len(accessLines(t, &logs)) >= 2 })
	for i, line := range accessLines(t, &logs) {
		if line["upstream"] != "node-a" {
			t.Errorf("access line %d: upstream %v, want node-a (%v)", i, line["upstream"], line)
		}
	}

	var calls int
	var read sdktrace.ReadOnlySpan
	for _, sp := range spans.Ended() {
		switch sp.Name() {
		case "call eth_getTransactionByHash":
			calls++
			if got := attr(sp, "nodegate.upstream"); got != "node-a" {
				t.Errorf("span of a batched call: nodegate.upstream %q, want node-a", got)
			}
		case "stage internalRead":
			read = sp
		}
	}
	if calls != 3 {
		t.Errorf("%d spans of the batch's calls, want 3", calls)
	}
	if read == nil {
		t.Fatal("no span of the internalRead stage for the tag of eth_getLogs")
	}
	attempts := 0
	for _, sp := range spans.Ended() {
		if sp.Parent().SpanID() == read.SpanContext().SpanID() && sp.Name() == "upstream node-a" {
			attempts++
		}
	}
	if attempts != 1 {
		t.Errorf("%d upstream attempts under the internalRead span, want 1", attempts)
	}
}

// attr is a span's string attribute ("" when it has none).
func attr(sp sdktrace.ReadOnlySpan, key string) string {
	for _, kv := range sp.Attributes() {
		if string(kv.Key) == key {
			return kv.Value.AsString()
		}
	}
	return ""
}
