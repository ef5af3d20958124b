package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

func startStatic(t *testing.T) *Static {
	t.Helper()
	s, err := StartStatic("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestStaticAnswers: fixed results, ids echoed byte for byte, batches
// answered call by call, unknown methods refused.
func TestStaticAnswers(t *testing.T) {
	s := startStatic(t)
	cases := []struct {
		name, body string
		check      func(t *testing.T, out []byte)
	}{
		{"transaction", `{"jsonrpc":"2.0","id":"a-1","method":"eth_getTransactionByHash","params":["` + StaticHashes()[7] + `"]}`, func(t *testing.T, out []byte) {
			id, r, err := jsonrpc.DecodeResponse(out)
			if err != nil || string(id) != `"a-1"` || r.Err != nil || len(r.Result) < 900 || !json.Valid(r.Result) {
				t.Errorf("answer %.120s (id %s, %d result bytes)", out, id, len(r.Result))
			}
		}},
		{"unknown transaction", `{"jsonrpc":"2.0","id":3,"method":"eth_getTransactionByHash","params":["0x00"]}`, func(t *testing.T, out []byte) {
			if _, r, _ := jsonrpc.DecodeResponse(out); r.Err != nil || string(r.Result) != "null" {
				t.Errorf("got %s, want null", out)
			}
		}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[]},{"jsonrpc":"2.0","id":0,"method":"eth_chainId","params":[]}]`, func(t *testing.T, out []byte) {
			want := `[{"jsonrpc":"2.0","id":1,"result":` + word + `},{"jsonrpc":"2.0","id":0,"result":"0x539"}]`
			if string(out) != want {
				t.Errorf("got %s, want %s", out, want)
			}
		}},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"eth_nope","params":[]}`, func(t *testing.T, out []byte) {
			if _, r, _ := jsonrpc.DecodeResponse(out); r.Err == nil || r.Err.Code != jsonrpc.CodeMethodNotFound {
				t.Errorf("got %s, want -32601", out)
			}
		}},
		{"not json", `{`, func(t *testing.T, out []byte) {
			if _, r, _ := jsonrpc.DecodeResponse(out); r.Err == nil || r.Err.Code != jsonrpc.CodeParseError {
				t.Errorf("got %s, want -32700", out)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(s.URL(), "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			tc.check(t, buf.Bytes())
		})
	}
}

// TestRunAgainstStatic drives a real run, single and batched, and checks
// the counts add up and the ratio is computed.
func TestRunAgainstStatic(t *testing.T) {
	s := startStatic(t)
	mix, err := ParseMix("eth_getTransactionByHash=3,eth_call=1")
	if err != nil {
		t.Fatal(err)
	}
	base := Config{URL: s.URL(), Mix: mix, Target: defaultTarget(), Concurrency: 4, Requests: 200, Batch: 1, PID: os.Getpid()}
	single, err := Run(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	if single.Requests != 200 || single.Calls != 200 || single.Errors != (Errors{}) {
		t.Errorf("single: %d requests, %d calls, errors %+v", single.Requests, single.Calls, single.Errors)
	}
	if single.Latency.P50 <= 0 || single.Latency.P50 > single.Latency.P99 || single.Latency.P99 > single.Latency.Max {
		t.Errorf("percentiles out of order: %+v", single.Latency)
	}
	if single.ServerCPU == nil {
		t.Error("no server cpu with a pid")
	}
	batched := base
	batched.Batch, batched.Requests = 10, 20
	b, err := Run(context.Background(), batched)
	if err != nil {
		t.Fatal(err)
	}
	if b.Requests != 20 || b.Calls != 200 || b.Errors != (Errors{}) {
		t.Errorf("batch: %d requests, %d calls, errors %+v", b.Requests, b.Calls, b.Errors)
	}
	c := Compare(single, b)
	if c.ThroughputRatio <= 0 {
		t.Errorf("ratio %v", c.ThroughputRatio)
	}
	var out bytes.Buffer
	if err := c.WriteJSON(&out); err != nil || !json.Valid(out.Bytes()) {
		t.Errorf("json output: %v", err)
	}
	out.Reset()
	c.WriteText(&out)
	if !strings.Contains(out.String(), "ratio first/second") {
		t.Errorf("text output lacks the ratio:\n%s", out.String())
	}
}

// TestRunCountsErrors: answers that are errors are counted as such.
func TestRunCountsErrors(t *testing.T) {
	mix, _ := ParseMix("eth_chainId")
	unavailable := serveFunc(t, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
	html := serveFunc(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) })
	rpcErr := serveFunc(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate"}}`))
	})
	cases := []struct {
		name  string
		url   string
		check func(e Errors) bool
	}{
		{"http status", unavailable, func(e Errors) bool { return e.HTTP == 10 && strings.Contains(e.First, "503") }},
		{"malformed", html, func(e Errors) bool { return e.Malformed == 10 }},
		{"json-rpc errors", rpcErr, func(e Errors) bool { return e.RPC == 10 && e.HTTP == 0 }},
		{"refused", "http://127.0.0.1:1", func(e Errors) bool { return e.Transport == 10 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Run(context.Background(), Config{URL: tc.url, Mix: mix, Target: defaultTarget(), Concurrency: 2, Requests: 10, Batch: 1, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(r.Errors) {
				t.Errorf("errors %+v", r.Errors)
			}
		})
	}
}

func serveFunc(t *testing.T, fn http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: fn, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func TestCheckAnswer(t *testing.T) {
	cases := []struct {
		name    string
		out     string
		batch   int
		rpcErrs int
		ok      bool
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"result":null}`, 1, 0, true},
		{"error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`, 1, 1, true},
		{"not json-rpc", `<html>`, 1, 0, false},
		{"batch", `[{"id":1,"result":1},{"id":2,"error":{"code":1,"message":"m"}}]`, 2, 1, true},
		{"short batch", `[{"id":1,"result":1}]`, 2, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := checkAnswer([]byte(tc.out), tc.batch)
			if (err == nil) != tc.ok || n != tc.rpcErrs {
				t.Errorf("got %d, %v; want %d, ok=%v", n, err, tc.rpcErrs, tc.ok)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	got := redactURL("http://u:pw@127.0.0.1:8545/v3/0123456789abcdef0123456789abcdef")
	if strings.Contains(got, "456789abcdef") || strings.Contains(got, "pw") {
		t.Errorf("redactURL leaks: %s", got)
	}
}
