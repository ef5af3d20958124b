package ingress_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/subs"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// gw is nodegate's ingress in front of the embedded dev chain (package
// gatewaytest: the key check, the method rules and the route as in
// production) on a loopback server, shared by every test of this binary
// that is about the wire.
var gw *wireGateway

// wireGateway is where the wire tests send: its URL, its one key and the
// dev chain behind it.
type wireGateway struct {
	url          string
	GeneratedKey string
	Node         *evmnode.Node
}

// URL is the gateway's base URL; WSURL the same for WebSockets.
func (g *wireGateway) URL() string   { return g.url }
func (g *wireGateway) WSURL() string { return "ws" + strings.TrimPrefix(g.url, "http") }

func TestMain(m *testing.M) {
	runAsClient()
	runAsLogsClient()
	os.Exit(runWithGateway(m))
}

// runWithGateway runs the tests with gw started, and stops it after.
func runWithGateway(m *testing.M) int {
	dir, err := os.MkdirTemp("", "nodegate-ingress")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	node, err := evmnode.Start(ctx, evmnode.Config{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the embedded node:", err)
		return 1
	}
	defer node.Close()
	// These tests are about the wire: the key's plan (team) gets no rate
	// or daily limit, so that big batches are never refused with 429.
	// Its pool follows the node's heads, and its hub serves subscriptions.
	n, closeNet := chainNetwork("wire", node)
	defer closeNet()
	s, closeAll, err := gatewaytest.New(dir, n, gatewaytest.Team)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the gateway:", err)
		return 1
	}
	defer closeAll()
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	gw = &wireGateway{url: srv.URL, GeneratedKey: gatewaytest.Key, Node: node}
	return m.Run()
}

// chainNetwork is a network of its own over node: its own pool, which
// follows the node's heads, and its own subscription hub; closeNet stops
// them.
func chainNetwork(name string, node *evmnode.Node) (n *pipeline.Network, closeNet func()) {
	up := transport.NewInProc(upstream.Func{ID: "embedded", Fn: node.Do, Heads: node.SubscribeHeads}, node.Server())
	pool := upstream.NewPool(name, upstream.PoolConfig{}, upstream.MemberConfig{Upstream: up, BatchSize: 1})
	pool.Start(context.Background())
	hub := subs.NewHub(subs.Options{}, pool)
	n = &pipeline.Network{Name: name, Methods: methods.NewTable(methods.FamilyEVM), Upstream: up, Pool: pool, Subs: hub}
	return n, func() { hub.Close(); pool.Close() }
}

// client bounds every request: a hang is a failure, not a stuck test.
var client = &http.Client{Timeout: 20 * time.Second}

// keyPath is the gateway's RPC path for the run's key.
func keyPath() string { return "/v3/" + gw.GeneratedKey }

type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func do(t *testing.T, method, path string, body []byte) reply {
	t.Helper()
	req, err := http.NewRequest(method, gw.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("build request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return reply{resp.StatusCode, resp.Header, out}
}

func post(t *testing.T, body string) reply {
	t.Helper()
	return do(t, http.MethodPost, keyPath(), []byte(body))
}

// rpcError and rpcAnswer are what a client library decodes.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

type rpcAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpcError       `json:"error"`
}

// single decodes a one-answer reply, checking the envelope.
func (r reply) single(t *testing.T) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatalf("reply is not one JSON-RPC answer (HTTP %d): %v: %.300s", r.Status, err, r.Body)
	}
	if a.JSONRPC != "2.0" {
		t.Fatalf("jsonrpc = %q in %.300s", a.JSONRPC, r.Body)
	}
	if (a.Error == nil) == (a.Result == nil) {
		t.Fatalf("want exactly one of result and error: %.300s", r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q", ct)
	}
	return a
}

// batch decodes a batch reply.
func (r reply) batch(t *testing.T) []rpcAnswer {
	t.Helper()
	var as []rpcAnswer
	if err := json.Unmarshal(r.Body, &as); err != nil {
		t.Fatalf("reply is not a JSON-RPC batch (HTTP %d): %v: %.300s", r.Status, err, r.Body)
	}
	if r.Status != http.StatusOK {
		t.Fatalf("batch answered HTTP %d", r.Status)
	}
	return as
}

// wantError checks an error answer's HTTP status, code, message and id.
func wantError(t *testing.T, r reply, status, code int, msg, id string) {
	t.Helper()
	a := r.single(t)
	if r.Status != status {
		t.Errorf("HTTP status = %d, want %d (%.200s)", r.Status, status, r.Body)
	}
	if a.Error == nil {
		t.Fatalf("no error in %.300s", r.Body)
	}
	if a.Error.Code != code {
		t.Errorf("code = %d, want %d (%s)", a.Error.Code, code, a.Error.Message)
	}
	if msg != "" && a.Error.Message != msg {
		t.Errorf("message = %q, want %q", a.Error.Message, msg)
	}
	if string(a.ID) != id {
		t.Errorf("id = %s, want %s", a.ID, id)
	}
}

func call(id, method, params string) string {
	s := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		s += `,"params":` + params
	}
	return s + "}"
}

func batchOf(calls ...string) string { return "[" + strings.Join(calls, ",") + "]" }
