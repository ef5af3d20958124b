package ingress_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/bench"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
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
func staticOverHTTP(b *testing.B) *transport.HTTP {
	b.Helper()
	st, err := bench.StartStatic("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	h, err := transport.NewHTTP(st.URL())
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkGatewayGetTransactionByHash is one eth_getTransactionByHash
// through ingress (key check), pipeline (method rules) and the upstream.
func BenchmarkGatewayGetTransactionByHash(b *testing.B) {
	b.Run("upstream=func", func(b *testing.B) {
		gatewaytest.ServeDirect(b, benchGateway(b, false), gatewaytest.HashBodies(1024, 1), 1)
	})
	b.Run("upstream=http", func(b *testing.B) {
		gatewaytest.ServeDirect(b, benchGateway(b, true), gatewaytest.HashBodies(1024, 1), 1)
	})
}

// BenchmarkBatch100 compares one batch of 100 calls with 100 single
// calls; the µs/call metric of the two sub-benchmarks is the ratio to read.
func BenchmarkBatch100(b *testing.B) {
	for _, viaHTTP := range []bool{false, true} {
		name := map[bool]string{false: "func", true: "http"}[viaHTTP]
		b.Run("upstream="+name+"/batch100", func(b *testing.B) {
			gatewaytest.ServeDirect(b, benchGateway(b, viaHTTP), gatewaytest.HashBodies(64, 100), 100)
		})
		b.Run("upstream="+name+"/single", func(b *testing.B) {
			gatewaytest.ServeDirect(b, benchGateway(b, viaHTTP), gatewaytest.HashBodies(1024, 1), 1)
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
	url := "http://" + ln.Addr().String() + "/v3/" + gatewaytest.Key
	bodies := gatewaytest.HashBodies(1024, 1)
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
	gatewaytest.ServeDirect(b, gatewayHandler(b, pool), gatewaytest.HashBodies(256, 10), 10)
}
