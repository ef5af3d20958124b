package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
)

// rawServer is a loopback TCP server that answers each HTTP request with
// the bytes reply returns, so tests control framing byte for byte.
type rawServer struct {
	ln       net.Listener
	accepted atomic.Int32
	requests atomic.Int32
	mu       sync.Mutex
	heads    []textproto.MIMEHeader
	bodies   []string
}

// reply returns the raw answer for the n-th request (from 0) and whether to
// close the connection after writing it.
type reply func(n int, body string) (raw string, closeAfter bool)

func startRaw(t *testing.T, fn reply) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			go s.serve(c, fn)
		}
	}()
	return s
}

func (s *rawServer) serve(c net.Conn, fn reply) {
	defer c.Close()
	tp := textproto.NewReader(bufio.NewReader(c))
	for {
		line, err := tp.ReadLine()
		if err != nil || !strings.HasPrefix(line, "POST ") {
			return
		}
		head, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(head.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(tp.R, body); err != nil {
			return
		}
		s.mu.Lock()
		s.heads = append(s.heads, head)
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		raw, closeAfter := fn(int(s.requests.Add(1))-1, string(body))
		if _, err := io.WriteString(c, raw); err != nil || closeAfter {
			return
		}
	}
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/rpc?x=1" }

func ok(body string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func chunked(parts ...string) string {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
	for _, p := range parts {
		fmt.Fprintf(&b, "%x;ext=1\r\n%s\r\n", len(p), p)
	}
	b.WriteString("0\r\nX-Trailer: 1\r\n\r\n")
	return b.String()
}

func ok429(body string) string {
	return "HTTP/1.1 429 Too Many Requests\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

const answer = `{"jsonrpc":"2.0","id":1,"result":"0x1"}`

func newTestHTTP(t *testing.T, rawURL string) *HTTP {
	t.Helper()
	h, err := NewHTTP(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if h.lean == nil {
		t.Fatal("plain http upstream does not use the lean client")
	}
	t.Cleanup(h.lean.closeIdle)
	return h
}

// TestH1Framing checks every way an answer can be framed, and whether the
// connection is reused after it.
func TestH1Framing(t *testing.T) {
	cases := []struct {
		name      string
		reply     reply
		want      string
		wantConns int32 // connections opened for three calls
	}{
		{"content-length", func(int, string) (string, bool) { return ok(answer), false }, answer, 1},
		{"chunked", func(int, string) (string, bool) { return chunked(answer[:10], answer[10:]), false }, answer, 1},
		{"continue then answer", func(int, string) (string, bool) {
			return "HTTP/1.1 100 Continue\r\n\r\n" + ok(answer), false
		}, answer, 1},
		{"until close", func(int, string) (string, bool) {
			return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + answer, true
		}, answer, 3},
		{"connection close", func(int, string) (string, bool) {
			return "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer, true
		}, answer, 3},
		{"http/1.0 keep-alive", func(int, string) (string, bool) {
			return "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer, false
		}, answer, 1},
		{"http/1.0 without keep-alive", func(int, string) (string, bool) {
			return "HTTP/1.0 200 OK\r\nContent-Length: " + strconv.Itoa(len(answer)) + "\r\n\r\n" + answer, true
		}, answer, 3},
		{"jsonrpc error with 400", func(int, string) (string, bool) {
			b := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}`
			return "HTTP/1.1 400 Bad Request\r\nContent-Length: " + strconv.Itoa(len(b)) + "\r\n\r\n" + b, false
		}, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad"}}`, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRaw(t, tc.reply)
			h := newTestHTTP(t, srv.url())
			for i := range 3 {
				out, err := h.Do(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if string(out) != tc.want {
					t.Fatalf("call %d: got %q, want %q", i, out, tc.want)
				}
			}
			if got := srv.accepted.Load(); got != tc.wantConns {
				t.Errorf("opened %d connections for 3 calls, want %d", got, tc.wantConns)
			}
		})
	}
}

// TestH1Request checks what the upstream receives.
func TestH1Request(t *testing.T) {
	srv := startRaw(t, func(int, string) (string, bool) { return ok(answer), false })
	u := strings.Replace(srv.url(), "http://", "http://user:secret@", 1)
	h := newTestHTTP(t, u)
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
	if _, err := h.Do(context.Background(), []byte(body)); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	head := srv.heads[0]
	checks := map[string]string{
		"Content-Type":   "application/json",
		"Content-Length": strconv.Itoa(len(body)),
		"Authorization":  "Basic dXNlcjpzZWNyZXQ=", // user:secret, as net/http sends it
		"Host":           srv.ln.Addr().String(),
	}
	for k, want := range checks {
		if got := head.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if srv.bodies[0] != body {
		t.Errorf("body %q, want %q", srv.bodies[0], body)
	}
	if h.Name() != "http://"+srv.ln.Addr().String() {
		t.Errorf("Name() = %q leaks more than scheme and host", h.Name())
	}
}

// TestH1ExtraHeaders: extra headers are sent; injected lines are refused.
func TestH1ExtraHeaders(t *testing.T) {
	srv := startRaw(t, func(int, string) (string, bool) { return ok(answer), false })
	h := newTestHTTP(t, srv.url())
	if err := h.lean.setHeaders(map[string]string{"Authorization": "Bearer abc", "X-Partner": "p1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Do(context.Background(), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	head := srv.heads[0]
	srv.mu.Unlock()
	if head.Get("Authorization") != "Bearer abc" || head.Get("X-Partner") != "p1" {
		t.Errorf("headers %v", head)
	}
	for _, bad := range []map[string]string{{"X-A": "v\r\nX-Injected: 1"}, {"X A": "v"}, {"": "v"}} {
		if err := h.lean.setHeaders(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestH1StaleConnection: a pooled connection the server closed while idle
// is replaced transparently, once.
func TestH1StaleConnection(t *testing.T) {
	srv := startRaw(t, func(int, string) (string, bool) { return ok(answer), true }) // closes without saying so
	h := newTestHTTP(t, srv.url())
	for i := range 3 {
		if _, err := h.Do(context.Background(), []byte(`{}`)); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		time.Sleep(20 * time.Millisecond) // let the close arrive
	}
	if got := srv.requests.Load(); got != 3 {
		t.Errorf("server saw %d requests, want 3 (no duplicate sends)", got)
	}
}

// TestH1Errors: broken answers are errors, never hangs or panics.
func TestH1Errors(t *testing.T) {
	cases := []struct {
		name   string
		raw    string
		status int
		want   string
	}{
		{"not http", "SSH-2.0-OpenSSH\r\n\r\n", 0, "malformed HTTP response"},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", 0, "malformed HTTP response"},
		{"bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", 0, "Content-Length"},
		{"conflicting content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 0, "Content-Length"},
		{"over the limit", "HTTP/1.1 200 OK\r\nContent-Length: 999999999999\r\n\r\n", 0, "over the"},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{}", 0, "unexpected EOF"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, "chunk size"},
		{"truncated chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc", 0, "read chunk"},
		{"unknown transfer-encoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, "Transfer-Encoding"},
		{"closed before answer", "", 0, "connection closed before an answer"},
		{"server error", "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 2\r\n\r\nno", 502, "Bad Gateway"},
		{"rate limited", ok429(`{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"slow down"}}`), 429, "Too Many Requests"},
		{"404 html", "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found", 404, "Not Found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRaw(t, func(int, string) (string, bool) { return tc.raw, true })
			h := newTestHTTP(t, srv.url())
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := h.Do(ctx, []byte(`{}`))
			var ue *upstream.Error
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want an upstream error", err)
			}
			if ue.Status != tc.status || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v (status %d), want status %d and %q", err, ue.Status, tc.status, tc.want)
			}
		})
	}
}

// TestH1DeadlineAndCancel: a silent upstream is abandoned at the context's
// deadline or cancellation, and the connection is not reused.
func TestH1DeadlineAndCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := startRaw(t, func(int, string) (string, bool) { <-release; return "", true })
	h := newTestHTTP(t, srv.url())

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := h.Do(ctx, []byte(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: got %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("deadline: returned after %v", d)
	}

	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel2)
	if _, err := h.Do(ctx2, []byte(`{}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancel: got %v, want context.Canceled", err)
	}
	if n := len(h.lean.idle); n != 0 {
		t.Errorf("%d connections pooled after failed calls, want 0", n)
	}
}

// TestH1AgainstNetHTTP runs the lean client against Go's own server under
// concurrency, with answers large enough to be chunked.
func TestH1AgainstNetHTTP(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("ab", 40000) + `"}`
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "big") {
			_, _ = io.WriteString(w, big) // no Content-Length: chunked
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b) // echo
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	h := newTestHTTP(t, "http://"+ln.Addr().String())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				body := fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)
				want := body
				if i%10 == 0 {
					body, want = `"big"`, big
				}
				out, err := h.Do(context.Background(), []byte(body))
				if err != nil || string(out) != want {
					t.Errorf("worker %d call %d: err %v, got %d bytes", w, i, err, len(out))
					return
				}
			}
		})
	}
	wg.Wait()
}
