package transport

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// wsNode starts the embedded node serving plain HTTP+WS on a free port and
// returns its ws:// URL.
func wsNode(t *testing.T) string {
	t.Helper()
	n := evmnodetest.StartHTTP(t)
	return "ws" + strings.TrimPrefix(n.HTTPEndpoint(), "http")
}

func TestWSIDsRestored(t *testing.T) {
	w, err := NewWS(wsNode(t), WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, tc := range []struct{ name, in, want string }{
		{"numeric id", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, `{"jsonrpc":"2.0","id":1,"result":"0x539"}`},
		{"string id", `{"jsonrpc":"2.0","id":"a b","method":"eth_chainId","params":[]}`, `{"jsonrpc":"2.0","id":"a b","result":"0x539"}`},
		{"zero id", `{"id":0,"jsonrpc":"2.0","method":"eth_chainId","params":[]}`, `{"jsonrpc":"2.0","id":0,"result":"0x539"}`},
		{"batch", `[{"jsonrpc":"2.0","id":"x","method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":7,"method":"nope_nope","params":[]}]`,
			`[{"jsonrpc":"2.0","id":"x","result":"0x539"},{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"the method nope_nope does not exist/is not available"}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := w.Do(context.Background(), []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Fatalf("got  %s\nwant %s", out, tc.want)
			}
		})
	}
	if _, err := w.Do(context.Background(), []byte(`{"jsonrpc":"2.0","method":"eth_chainId"}`)); err == nil {
		t.Fatal("a call without an id must be refused, not sent")
	}
}

func TestWSConcurrentAndReconnect(t *testing.T) {
	w, err := NewWS(wsNode(t), WSOptions{MaxInFlight: 8, RedialDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := range 200 {
		wg.Go(func() {
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"0x539"}`, 1000+i)
			out, err := w.Do(context.Background(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"eth_chainId","params":[]}`, 1000+i))
			if err != nil || string(out) != want {
				errs <- fmt.Errorf("call %d: %s %v", i, out, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Drop the connection under the upstream: the next call dials again.
	w.mu.Lock()
	_ = w.conn.ws.Close()
	w.mu.Unlock()
	testenv.WaitFor(t, 5*time.Second, "an answer after a drop", func() bool {
		out, err := w.Do(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
		if err == nil && string(out) == `{"jsonrpc":"2.0","id":1,"result":"0x539"}` {
			return true
		}
		if !upstream.IsNodeFault(err) {
			t.Fatalf("after a drop: %s %v", out, err)
		}
		return false
	})
}

func TestWSUnreachable(t *testing.T) {
	w, err := NewWS("ws://127.0.0.1:1", WSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = w.Do(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	var ue *upstream.Error
	if !errors.As(err, &ue) {
		t.Fatalf("want a node fault, got %v", err)
	}
	for _, bad := range []string{"http://x", "ws://", "::"} {
		if _, err := NewWS(bad, WSOptions{}); err == nil {
			t.Fatalf("NewWS(%q) accepted", bad)
		}
	}
}

func FuzzWSDispatch(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"result":"0x1"}`, `[{"id":1,"result":1},{"id":2,"error":{}}]`, `{"method":"eth_subscription"}`, `[`, `{"id":"1","result":0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		c := &wsUpConn{pending: map[uint64]*wsPending{}}
		p := &wsPending{ids: []uint64{1, 2}, orig: map[uint64][]byte{1: []byte(`"a"`), 2: []byte(`0`)}, done: make(chan wsResult, 1)}
		c.pending[1], c.pending[2] = p, p
		c.dispatch(msg)
	})
}
