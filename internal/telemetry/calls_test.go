package telemetry

import (
	"errors"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestObserveCallDoesNotAllocate: once a network/method/plan was seen,
// recording a call allocates nothing (the hot path's budget).
func TestObserveCallDoesNotAllocate(t *testing.T) {
	r := New()
	r.ObserveCall("mainnet", "eth_call", "team", CodeOK, time.Millisecond)
	r.ObserveAttempt("mainnet", "node-a", time.Millisecond, nil, nil)
	if n := testing.AllocsPerRun(1000, func() {
		r.ObserveCall("mainnet", "eth_call", "team", CodeOK, time.Millisecond)
		r.ObserveAttempt("mainnet", "node-a", time.Millisecond, nil, nil)
	}); n != 0 {
		t.Fatalf("ObserveCall + ObserveAttempt allocate %v times per call, want 0", n)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *jsonrpc.Error
		want Code
	}{
		{"result", nil, CodeOK},
		{"rate", &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded, Status: 429}, CodeRateLimited},
		{"unknown key", jsonrpc.ErrUnauthorized("invalid API key"), CodeUnauthorized},
		{"key settings", jsonrpc.ErrForbidden(), CodeForbidden},
		{"unknown method", jsonrpc.ErrMethodNotFound("x_y"), CodeInvalid},
		{"bad params", jsonrpc.ErrInvalidParams("bad"), CodeInvalid},
		{"getLogs limit", jsonrpc.NewError(jsonrpc.CodeLimitExceeded, "too many"), CodeLimit},
		{"unavailable", jsonrpc.ErrUpstreamUnavailable(), CodeUpstream},
		{"revert", &jsonrpc.Error{Code: jsonrpc.CodeReverted, Message: "execution reverted", Raw: []byte(`{}`)}, CodeNode},
		{"a node's time limit", jsonrpc.DecodeError([]byte(`{"code":-32002,"message":"request timed out"}`)), CodeNode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.err); got != tc.want {
				t.Fatalf("Classify = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestErrorClass(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *jsonrpc.Response
		err  error
		want string
	}{
		{"success", &jsonrpc.Response{}, nil, ""},
		{"lagging node", &jsonrpc.Response{Err: jsonrpc.NewError(-32000, "header not found")}, nil, "node_fault"},
		{"revert is an answer", &jsonrpc.Response{Err: jsonrpc.NewError(3, "execution reverted")}, nil, ""},
		{"a node's time limit", &jsonrpc.Response{Err: jsonrpc.DecodeError([]byte(`{"code":-32002,"message":"request timed out"}`))}, nil, "timeout"},
		{"5xx", nil, &upstream.Error{Upstream: "a", Status: 502, Err: errors.New("Bad Gateway")}, "http_5xx"},
		{"429", nil, &upstream.Error{Upstream: "a", Status: 429, Err: errors.New("Too Many Requests")}, "http_429"},
		{"bad body", nil, &upstream.Error{Upstream: "a", Err: errors.New("invalid JSON")}, "bad_response"},
		{"dial", nil, &upstream.Error{Upstream: "a", Err: errors.New("dial: connection refused")}, "connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ErrorClass(tc.resp, tc.err); got != tc.want {
				t.Fatalf("ErrorClass = %q, want %q", got, tc.want)
			}
		})
	}
}
