package ingress_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// benchGateway is an ingress in front of the load tool's static upstream,
// reached over loopback HTTP as in production, or in process (Func) to
// isolate ingress and pipeline from the upstream client.
func benchGateway(b *testing.B, viaHTTP bool) http.Handler {
	b.Helper()
	var up upstream.Upstream
	if viaHTTP {
		up = staticOverHTTP(b)
	} else {
		up = upstream.Func{ID: "static", Fn: func(_ context.Context, body []byte) ([]byte, error) {
			return bench.AnswerStatic(nil, body), nil
		}}
	}
	return gatewayHandler(b, up)
}

// staticOverHTTP is the load tool's static upstream, started for b, as a
// client reaches it over loopback HTTP.
func staticOverHTTP(b *testing.B) *upstream.HTTP {
	b.Helper()
	st, err := bench.StartStatic("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	h, err := upstream.NewHTTP(st.URL())
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// hashBodies are distinct eth_getTransactionByHash requests.
func hashBodies(n, batch int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		var buf bytes.Buffer
		if batch > 1 {
			buf.WriteByte('[')
		}
		for j := range batch {
			if j > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"method":"eth_getTransactionByHash","params":["0x%064x"]}`, j+1, i*batch+j+1)
		}
		if batch > 1 {
			buf.WriteByte(']')
		}
		out[i] = buf.Bytes()
	}
	return out
}

// sink is the smallest ResponseWriter: the benchmark calls the handler
// directly, without a listener, to see ingress and pipeline alone.
type sink struct {
	h      http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.status = code }
func (s *sink) Write(p []byte) (int, error) { s.n += len(p); return len(p), nil }

func serveDirect(b *testing.B, h http.Handler, bodies [][]byte, calls int) {
	b.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/v3/"+benchKey, nil)
	req.Header.Set("Content-Type", "application/json")
	rd := bytes.NewReader(nil)
	req.Body = io.NopCloser(rd)
	w := &sink{h: make(http.Header)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		rd.Reset(bodies[i%len(bodies)])
		clear(w.h)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.n < 100*calls {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls)/1e3, "µs/call")
}

// BenchmarkGatewayGetTransactionByHash is one eth_getTransactionByHash
// through ingress (key check), pipeline (method rules) and the upstream.
func BenchmarkGatewayGetTransactionByHash(b *testing.B) {
	b.Run("upstream=func", func(b *testing.B) { serveDirect(b, benchGateway(b, false), hashBodies(1024, 1), 1) })
	b.Run("upstream=http", func(b *testing.B) { serveDirect(b, benchGateway(b, true), hashBodies(1024, 1), 1) })
}

// BenchmarkBatch100 compares one batch of 100 calls with 100 single
// calls; the µs/call metric of the two sub-benchmarks is the ratio to read.
func BenchmarkBatch100(b *testing.B) {
	for _, viaHTTP := range []bool{false, true} {
		name := map[bool]string{false: "func", true: "http"}[viaHTTP]
		b.Run("upstream="+name+"/batch100", func(b *testing.B) {
			serveDirect(b, benchGateway(b, viaHTTP), hashBodies(64, 100), 100)
		})
		b.Run("upstream="+name+"/single", func(b *testing.B) {
			serveDirect(b, benchGateway(b, viaHTTP), hashBodies(1024, 1), 1)
		})
	}
}

// BenchmarkLoopbackGetTransactionByHash is the whole path over loopback
// TCP: client → nodegate's HTTP server → static upstream over HTTP.
func BenchmarkLoopbackGetTransactionByHash(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: benchGateway(b, true), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = srv.Close() })
	url := "http://" + ln.Addr().String() + "/v3/" + benchKey
	bodies := hashBodies(1024, 1)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			resp, err := client.Post(url, "application/json", bytes.NewReader(bodies[i%len(bodies)]))
			i++
			if err != nil {
				b.Error(err)
				return
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if _, r, err := jsonrpc.DecodeResponse(out); err != nil || r.Err != nil {
				b.Errorf("bad answer %.200s", out)
				return
			}
		}
	})
}

// BenchmarkBatch10 is a client batch of ten distinct calls through a pool
// that sends them upstream as one upstream batch, over loopback HTTP to
// the static upstream.
func BenchmarkBatch10(b *testing.B) {
	pool := upstream.NewPool("bench", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: staticOverHTTP(b)})
	serveDirect(b, gatewayHandler(b, pool), hashBodies(256, 10), 10)
}
