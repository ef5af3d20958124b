package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestPoolResendsAWriteAMemberHungOn: member b hangs on a broadcast
// transaction past the attempt timeout (and never takes it), while the
// pool looks for writes to send again many times meanwhile. b is sent the
// transaction again and takes it: a delivery that fails after the
// broadcast is a miss like a member out of service (resend.go keeps the
// record until every delivery ended).
func TestPoolResendsAWriteAMemberHungOn(t *testing.T) {
	_, raw := signedTx(t)
	a, bn := newChainNode(t, 10), newChainNode(t, 10)
	var hang atomic.Bool
	hang.Store(true)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if strings.Contains(string(body), "eth_sendRawTransaction") && hang.Swap(false) {
			select { // hung past the attempt timeout; the transaction is lost
			case <-release:
			case <-time.After(2 * time.Second):
			}
			return
		}
		bn.ServeHTTP(w, r)
	}))
	t.Cleanup(b.Close)
	p := startPool(t, upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, ProbeInterval: 20 * time.Millisecond,
		AttemptTimeout: 300 * time.Millisecond, FailThreshold: 100}, httpMember(t, a.srv.URL), httpMember(t, b.URL))
	if got := send(t, p, "eth_sendRawTransaction", `["`+raw+`"]`, false); got.Err != nil {
		t.Fatalf("send: %v", got.Err)
	}
	testenv.WaitFor(t, 10*time.Second, "b to be sent the transaction again and take it", func() bool { return bn.has(raw) })
}

// TestPoolResendsTheBytesItWasGiven: the caller's body is a buffer it
// uses again once answered (nodegate's ingress pools them); a member out
// of service during the broadcast is later sent the transaction itself,
// not whatever the buffer holds by then.
func TestPoolResendsTheBytesItWasGiven(t *testing.T) {
	_, raw := signedTx(t)
	a := newChainNode(t, 10)
	b := newHangable(t, newChainNode(t, 10))
	p := startPool(t, upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, ProbeInterval: 20 * time.Millisecond},
		httpMember(t, a.srv.URL), httpMember(t, b.srv.URL))
	b.down.Store(true)
	testenv.WaitFor(t, 5*time.Second, "b out of service", func() bool { return !p.Members()[1].InService() })
	params := `["` + raw + `"]`
	rule, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_sendRawTransaction")
	body := jsonrpc.AppendRequest(nil, 1, "eth_sendRawTransaction", json.RawMessage(params))
	if resp, _, err := p.Send(context.Background(), upstream.Call{Body: body, Rule: rule, Params: json.RawMessage(params)}); err != nil || resp.Err != nil {
		t.Fatalf("send: %v %v", err, resp)
	}
	for i := range body { // the caller's buffer, used for its next request
		body[i] = ' '
	}
	b.down.Store(false)
	testenv.WaitFor(t, 10*time.Second, "b to be sent the transaction it missed", func() bool { return b.n.has(raw) })
}
