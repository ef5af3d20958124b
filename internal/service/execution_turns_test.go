package service

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestExecutionTurnsAcrossRebuild: a key's share of the embedded node's
// CPUs is per key per process. With its share taken by looping eth_calls
// on the network as built at start, a reload that rebuilds the network
// (new stages) gives it no new turns: its next eth_call, on the rebuilt
// network, waits for one of those calls to end.
func TestExecutionTurnsAcrossRebuild(t *testing.T) {
	const callTimeout = 10 * time.Second
	cfg := testConfig(t)
	cfg.Limits.GasCapFactor = 1000 // the looping calls run until call_timeout, not out of gas
	cfg.Plans["team"] = config.Plan{Failover: true, CallTimeout: callTimeout}
	s := start(t, cfg)
	key, ok := s.Keys.Lookup(s.GeneratedKey)
	if !ok {
		t.Fatal("the generated key is not known")
	}
	share := s.admission.ExecutionShare()
	ws, _, err := websocket.DefaultDialer.Dial(strings.Replace(s.URL(), "http", "ws", 1)+"/ws/v3/"+s.GeneratedKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	for i := range share {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_call","params":[{"data":"0x5b600056"},"latest"]}`, i+1)
		if err := ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	testenv.WaitFor(t, 20*time.Second, "the looping calls to take the key's turns", func() bool {
		return s.admission.Of(key.ID).Executions == share
	})

	built := s.current().networks[0]
	next := cfg
	next.Networks = cfg.EffectiveNetworks()
	next.Networks[0].Pool.MaxAttempts = 2 // the network's settings change: it is built again
	if err := s.Reload(context.Background(), next); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if s.current().networks[0] == built {
		t.Fatal("the reload did not rebuild the network")
	}

	// Well before the looping calls' deadline, the call has had no turn.
	quick := testenv.RPCBody("eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]`)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout/5)
	status, out, err := testenv.Post(ctx, nil, s.URL()+"/v3/"+s.GeneratedKey, quick)
	cancel()
	if err == nil {
		t.Fatalf("with its share taken on the network before the reload, the key's eth_call ran on the rebuilt network: HTTP %d %s", status, out)
	}
	// Once the looping calls end, its turns are back.
	for range share {
		_ = ws.SetReadDeadline(time.Now().Add(time.Minute))
		if _, msg, err := ws.ReadMessage(); err != nil || !strings.Contains(string(msg), `"error":{"code":-32000,"message":"execution aborted (timeout = 10s)"}`) {
			t.Fatalf("a looping call answered %s (%v)", msg, err)
		}
	}
	testenv.WaitFor(t, 20*time.Second, "the key's turns back", func() bool { return s.admission.Of(key.ID).Executions == 0 })
	if status, out := testenv.PostJSON(t, s.URL()+"/v3/"+s.GeneratedKey, quick); status != http.StatusOK || strings.Contains(string(out), `"error"`) {
		t.Fatalf("after the looping calls: HTTP %d %s", status, out)
	}
}
