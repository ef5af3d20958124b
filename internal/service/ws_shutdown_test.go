package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// slowCallNode is an EVM node on loopback whose eth_call takes delay.
func slowCallNode(t *testing.T, delay time.Duration, calls *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &req) != nil {
			http.Error(w, "one call at a time", http.StatusBadRequest)
			return
		}
		result := `null`
		switch req.Method {
		case "eth_chainId":
			result = `"0x1"`
		case "eth_blockNumber":
			result = `"0x10"`
		case "eth_getBlockByNumber":
			result = `{"number":"0x10","hash":"0x` + fmt.Sprintf("%064x", 16) + `","gasLimit":"0x1c9c380"}`
		case "eth_call":
			calls.Add(1)
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
			result = `"0x2a"`
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestWebSocketCallsFinishAtShutdown: a WebSocket call in flight when the
// service shuts down (SIGTERM) is answered before the 1001 close, within
// shutdown.timeout, as an HTTP call in flight is.
func TestWebSocketCallsFinishAtShutdown(t *testing.T) {
	var calls atomic.Int64
	node := slowCallNode(t, 1500*time.Millisecond, &calls)
	cfg := servicetest.Config(t)
	cfg.Networks = []config.Network{{Name: "main", Family: "evm", Upstreams: []config.Upstream{{Name: "slow", URL: node}}}}
	cfg.Shutdown.Timeout = 20 * time.Second
	s := servicetest.Start(t, cfg)
	ws, _, err := websocket.DefaultDialer.Dial(s.WSURL()+"/ws/v3/"+s.GeneratedKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]}`
	if err := ws.WriteMessage(websocket.TextMessage, []byte(call)); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "the node has the call", func() bool { return calls.Load() == 1 })
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.Shutdown.Timeout)
		defer cancel()
		closed <- s.Close(ctx)
	}()
	_ = ws.SetReadDeadline(time.Now().Add(cfg.Shutdown.Timeout))
	_, msg, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("closed before the call in flight was answered: %v", err)
	}
	var a struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &a) != nil || a.ID != 1 || string(a.Result) != `"0x2a"` {
		t.Fatalf("answer %s, want id 1 and the node's result", msg)
	}
	_, _, err = ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("after the answer: %v, want a 1001 close", err)
	}
	if err := <-closed; err != nil {
		t.Logf("close: %v", err)
	}
}
