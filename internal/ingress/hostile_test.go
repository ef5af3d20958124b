package ingress_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/nodegate/nodegate/internal/ingress"
)

// TestHostileBodies: what a hostile or broken client can send gets one clear
// JSON-RPC error, within a deadline, and the gateway still serves afterwards.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	giantID := `"` + strings.Repeat("x", 1<<20) + `"`
	overLimit := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["` + strings.Repeat("a", ingress.DefaultMaxBodyBytes) + `"]}`
	cases := []struct {
		name   string
		body   string
		status int
		code   int
		msg    string
		id     string
	}{
		{"body over the limit", overLimit, http.StatusRequestEntityTooLarge, -32600, "request body too large (limit " + strconv.Itoa(ingress.DefaultMaxBodyBytes) + " bytes)", "null"},
		{"deep nesting as the body", deep, http.StatusOK, -32600, "invalid request: nested deeper than 128 levels", "null"},
		{"deep nesting in params", call("1", "eth_call", strings.Repeat("[", 5000)+strings.Repeat("]", 5000)), http.StatusOK, -32600, "invalid request: nested deeper than 128 levels", "null"},
		{"unbalanced nesting", strings.Repeat("[", 10000), http.StatusOK, -32700, "parse error", "null"},
		{"nesting beyond encoding/json", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), http.StatusOK, -32700, "parse error", "null"},
		{"deep objects in a call object", call("1", "eth_call", `[`+strings.Repeat(`{"a":`, 5000)+`1`+strings.Repeat("}", 5000)+`,"latest"]`), http.StatusOK, -32600, "invalid request: nested deeper than 128 levels", "null"},
		{"giant id", call(giantID, "eth_chainId", "[]"), http.StatusOK, -32600, "", "null"},
		{"giant method name", call("1", strings.Repeat("a", 1<<20), "[]"), http.StatusOK, -32600, "", "1"},
		{"many params", call("1", "eth_getTransactionByHash", "["+strings.Repeat(`"x",`, 200000)+`"x"]`), http.StatusOK, -32602, "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash", "1"},
		{"invalid UTF-8 in an id", call("\"a\xff\"", "eth_chainId", "[]"), http.StatusOK, -32700, "parse error: invalid UTF-8", "null"},
		{"invalid UTF-8 in a method name", call("1", "eth_\xc3(", "[]"), http.StatusOK, -32700, "parse error: invalid UTF-8", "null"},
		{"invalid UTF-8 in a batch entry", batchOf(call("1", "eth_chainId", "[]"), call("\"\xed\xa0\x80\"", "eth_chainId", "[]")), http.StatusOK, -32700, "parse error: invalid UTF-8", "null"},
		{"huge number", call("1", "eth_getTransactionByBlockNumberAndIndex", `[1`+strings.Repeat("0", 100000)+`,"0x0"]`), http.StatusOK, -32602, "", "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, gw.URL()+keyPath(), strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("no answer within the deadline: %v", err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !utf8.Valid(body) {
				t.Errorf("answer is not valid UTF-8: %q", body)
			}
			r := reply{resp.StatusCode, resp.Header, body}
			wantError(t, r, tc.status, tc.code, tc.msg, tc.id)
			if len(body) > 4096 {
				t.Errorf("error answer is %d bytes: the hostile input is echoed", len(body))
			}
		})
	}
	// The gateway must still answer normally after all of the above.
	if a := post(t, call("1", "eth_chainId", "[]")).single(t); string(a.Result) != `"0x539"` {
		t.Fatalf("gateway unhealthy afterwards: %+v", a)
	}
}

// TestBodyLimitEdge: a body of exactly the limit is read; one byte more is refused.
func TestBodyLimitEdge(t *testing.T) {
	t.Parallel()
	prefix := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[],"pad":"`
	pad := ingress.DefaultMaxBodyBytes - len(prefix) - len(`"}`)
	atLimit := prefix + strings.Repeat("a", pad) + `"}`
	if a := post(t, atLimit).single(t); string(a.Result) != `"0x539"` {
		t.Fatalf("body at the limit: %+v", a)
	}
	over := prefix + strings.Repeat("a", pad+1) + `"}`
	wantError(t, post(t, over), http.StatusRequestEntityTooLarge, -32600, "", "null")
}

// TestTruncatedBody: a client that stops sending mid-body and gives up
// leaves the gateway serving.
func TestTruncatedBody(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		_, _ = pw.Write([]byte(`{"jsonrpc":"2.0","id":1,`))
		<-ctx.Done()
		_ = pw.CloseWithError(ctx.Err())
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, gw.URL()+keyPath(), pr)
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("answered HTTP %d to a body that never ended", resp.StatusCode)
	}
	if a := post(t, call("1", "eth_chainId", "[]")).single(t); string(a.Result) != `"0x539"` {
		t.Fatalf("gateway unhealthy afterwards: %+v", a)
	}
}
