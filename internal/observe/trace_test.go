package observe_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP trace receiver on 127.0.0.1: it decodes the
// protobuf export requests and keeps their spans.
type receiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	url   string
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		raw, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(raw, &req); err != nil {
			t.Errorf("receiver: not an OTLP export request: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				rc.spans = append(rc.spans, ss.GetSpans()...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	rc.url = "http://" + ln.Addr().String()
	return rc
}

// trace returns the spans of one trace id, by span id.
func (rc *receiver) trace(traceID []byte) map[string]*tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string]*tracepb.Span{}
	for _, s := range rc.spans {
		if bytes.Equal(s.GetTraceId(), traceID) {
			out[hex.EncodeToString(s.GetSpanId())] = s
		}
	}
	return out
}

// TestTracesContinueTheClientsTraceparent: with OTEL_EXPORTER_OTLP_ENDPOINT
// set, a request carrying a W3C traceparent makes a span tree in the
// client's trace (request, call, every stage, the upstream attempt), and
// the upstream receives a traceparent in the same trace whose parent is
// the attempt's span.
func TestTracesContinueTheClientsTraceparent(t *testing.T) {
	rc := startReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.url)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	t.Setenv("OTEL_SERVICE_NAME", "nodegate-test")

	// The static upstream of the load tool, recording the traceparent it gets.
	var (
		upMu        sync.Mutex
		upstreamTPs []string
	)
	static := bench.StaticHandler()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tp := r.Header.Get("Traceparent"); tp != "" {
			upMu.Lock()
			upstreamTPs = append(upstreamTPs, tp)
			upMu.Unlock()
		}
		static.ServeHTTP(w, r)
	})}
	go func() { _ = up.Serve(ln) }()
	t.Cleanup(func() { _ = up.Close() })

	s := start(t, func(c *config.Config) { c.Upstream = "http://" + ln.Addr().String() })
	const (
		clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
		clientParent = "00f067aa0ba902b7"
	)
	st, body := post(t, s.URL()+"/v3/"+s.GeneratedKey,
		`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionByHash","params":["0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b"]}`,
		map[string]string{"traceparent": "00-" + clientTrace + "-" + clientParent + "-01"})
	if st != 200 || !strings.Contains(body, `"result"`) {
		t.Fatalf("call: %d %s", st, body)
	}

	traceID, _ := hex.DecodeString(clientTrace)
	want := []string{"POST /v3", "call eth_getTransactionByHash", "stage recoverStage", "stage methodRules", "stage allowStage",
		"stage getLogsLimits", "stage filterLimits", "stage gasCap", "stage executionLimits", "stage sessionStage",
		"stage blockFirst", "stage route"}
	var spans map[string]*tracepb.Span
	testenv.WaitFor(t, 30*time.Second, "the request's spans at the receiver", func() bool {
		spans = rc.trace(traceID)
		names := map[string]bool{}
		for _, sp := range spans {
			names[sp.GetName()] = true
		}
		for _, n := range want {
			if !names[n] {
				return false
			}
		}
		for n := range names {
			if strings.HasPrefix(n, "upstream ") {
				return true
			}
		}
		return false
	})

	byName := map[string]*tracepb.Span{}
	for _, sp := range spans {
		byName[sp.GetName()] = sp
	}
	root := byName["POST /v3"]
	if got := hex.EncodeToString(root.GetParentSpanId()); got != clientParent {
		t.Errorf("request span's parent = %s, want the client's span %s", got, clientParent)
	}
	if root.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("request span kind %v, want server", root.GetKind())
	}
	var attempt *tracepb.Span
	for _, sp := range spans {
		if strings.HasPrefix(sp.GetName(), "upstream ") {
			attempt = sp
		}
	}
	if attempt.GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("attempt span kind %v, want client", attempt.GetKind())
	}
	// Walk from the attempt up to the request span: every stage on the way.
	var path []string
	for sp := attempt; sp != nil; sp = spans[hex.EncodeToString(sp.GetParentSpanId())] {
		path = append(path, sp.GetName())
	}
	wantPath := "upstream 127.0.0.1:" // then the stages, innermost first
	if !strings.HasPrefix(path[0], wantPath) || path[len(path)-1] != "POST /v3" || len(path) != len(want)+1 {
		t.Errorf("span path from the attempt to the request: %v", path)
	}
	t.Logf("span tree (attempt → request): %s", strings.Join(path, " → "))

	upMu.Lock()
	defer upMu.Unlock()
	wantTP := "00-" + clientTrace + "-" + hex.EncodeToString(attempt.GetSpanId()) + "-01"
	found := false
	for _, tp := range upstreamTPs {
		found = found || tp == wantTP
	}
	if !found {
		t.Errorf("upstream traceparents %v, want %s", upstreamTPs, wantTP)
	}
}
