package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

const blockNumberCall = `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`

// TestReadyFollowsUpstream: /ready is 200 while the network's only
// upstream (a real `nodegate node` process) lives, 503 naming the network
// once it is killed, 200 again when it is back on the same port; /health
// stays 200 throughout.
func TestReadyFollowsUpstream(t *testing.T) {
	node := startNode(t, chainDir, "127.0.0.1:0")
	cfg := testConfig(t)
	cfg.Node.ChainDir = ""
	cfg.Upstream = node.url()
	s := start(t, cfg)
	if code, st := ready(t, s.URL()); code != 200 || st.Status != "ready" {
		t.Fatalf("ready with a live upstream: %d %+v", code, st)
	}
	node.kill()
	testenv.WaitFor(t, 20*time.Second, "/ready 503", func() bool {
		code, st := ready(t, s.URL())
		return code == 503 && st.Status == "unavailable" && slices.Equal(st.Networks, []string{"default"})
	})
	if resp, err := http.Get(s.URL() + "/health"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/health while the upstream is down: %v %v", resp, err)
	}
	node.restart()
	testenv.WaitFor(t, 30*time.Second, "/ready 200 again", func() bool {
		code, _ := ready(t, s.URL())
		return code == 200
	})
}

// TestTwoInstancesOnOneMachine: two `nodegate serve --listen OTHER` start
// side by side (no admin token: neither binds the admin port).
func TestTwoInstancesOnOneMachine(t *testing.T) {
	env := []string{config.AdminTokenEnv + "="}
	a := startServe(t, env, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--chain", chainDir)
	b := startServe(t, env, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--chain", chainDir)
	for _, p := range []*serveProc{a, b} {
		if code, body := rpc(t, http.DefaultClient, p.url+"/v3/"+p.key, blockNumberCall); code != 200 || !strings.Contains(body, `"result"`) {
			t.Fatalf("%s: %d %s", p.url, code, body)
		}
		if !strings.Contains(p.output(), "admin API off: set admin.token") {
			t.Fatalf("no line says how to enable the admin API:\n%s", p.output())
		}
	}
}

// slowUpstream is a JSON-RPC node on 127.0.0.1 that answers eth_getBalance
// after delay and the rest at once.
func slowUpstream(t *testing.T, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		result := `"0x10"`
		switch req.Method {
		case "eth_chainId":
			result = `"0x539"`
		case "eth_getBalance":
			time.Sleep(delay)
			result = `"0x2a"`
		case "eth_getBlockByNumber":
			result = `{"number":"0x10","gasLimit":"0x1c9c380"}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestDrainOnSIGTERM: a real process on SIGTERM answers /ready 503 at
// once, keeps serving for drain_delay, lets a call in flight finish,
// closes a WebSocket with 1001, flushes usage and exits 0.
func TestDrainOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	up := slowUpstream(t, 3*time.Second)
	path := writeConfig(t, dir, fmt.Sprintf(`listen: 127.0.0.1:0
data_dir: %s/data
upstream: %s
admin: { listen: "" }
plans: { team: { rate_per_second: 0 } }
rate_limit: { usage_flush: 1h }
shutdown: { drain_delay: 1500ms, timeout: 10s }
`, dir, up))
	p := startServe(t, nil, "--config", path)
	endpoint := p.url + "/v3/" + p.key
	ws, _, err := websocket.DefaultDialer.Dial(strings.Replace(p.url, "http", "ws", 1)+"/ws/v3/"+p.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	const before = 5
	for range before {
		if code, _ := rpc(t, http.DefaultClient, endpoint, blockNumberCall); code != 200 {
			t.Fatalf("call before the signal: %d", code)
		}
	}
	slow := make(chan string, 1)
	go func() {
		_, body := rpc(t, &http.Client{}, endpoint, `{"jsonrpc":"2.0","id":7,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000001","latest"]}`)
		slow <- body
	}()
	time.Sleep(500 * time.Millisecond) // the slow call is in flight
	p.signal(syscall.SIGTERM)
	testenv.WaitFor(t, 5*time.Second, "/ready draining", func() bool {
		code, st := ready(t, p.url)
		return code == 503 && st.Status == "draining"
	})
	// Still serving during the drain delay.
	if code, body := rpc(t, &http.Client{}, endpoint, blockNumberCall); code != 200 || !strings.Contains(body, `"0x10"`) {
		t.Fatalf("call during the drain delay: %d %s", code, body)
	}
	_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, _, err = ws.ReadMessage()
	var ce *websocket.CloseError
	if !errorsAs(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("WebSocket ended with %v, want close 1001", err)
	}
	select {
	case body := <-slow:
		if !strings.Contains(body, `"0x2a"`) {
			t.Fatalf("the call in flight got %s", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call in flight got no answer")
	}
	if code := p.wait(30 * time.Second); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, p.output())
	}
	// Usage was flushed at exit (usage_flush is 1h: only the shutdown wrote it).
	var out, errOut strings.Builder
	if code := runKeys([]string{"usage", keyID(p.key), "--data-dir", dir + "/data", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("keys usage: %d %s", code, errOut.String())
	}
	var rows []struct {
		Method   string
		Requests int64
	}
	if err := json.Unmarshal([]byte(out.String()), &rows); err != nil {
		t.Fatalf("usage %s: %v", out.String(), err)
	}
	var total int64
	for _, r := range rows {
		total += r.Requests
	}
	if total != before+2 {
		t.Fatalf("usage after exit: %d requests, want %d: %s", total, before+2, out.String())
	}
}

// TestChainIDCheck: a member on another chain is kept out of service, with
// the reason in /admin/upstreams, at start and after it reconnects.
func TestChainIDCheck(t *testing.T) {
	dev := startNode(t, "", "127.0.0.1:0")         // dev chain, chain id 1337
	other := startNode(t, chainDir, "127.0.0.1:0") // the test chain, another chain id
	cfg := testConfig(t)
	cfg.Node.ChainDir = ""
	cfg.NoStarknet = true
	cfg.Networks = []config.Network{{Name: "main", Upstreams: []config.Upstream{
		{Name: "dev", URL: dev.url()}, {Name: "other", URL: other.url()},
	}, Pool: config.Pool{ProbeInterval: 100 * time.Millisecond, HeadInterval: 200 * time.Millisecond}}}
	s := start(t, cfg)
	status := func() map[string]upstream.MemberStatus {
		out := map[string]upstream.MemberStatus{}
		for _, n := range adminUpstreams(t, s) {
			for _, m := range n.Upstreams {
				out[m.Name] = m
			}
		}
		return out
	}
	st := status()
	if !st["dev"].Healthy || st["other"].Healthy || !strings.Contains(st["other"].LastError, "not the network's 1337") {
		t.Fatalf("at start: %+v", st)
	}
	if s.Networks()[0].ChainID != 1337 {
		t.Fatalf("network chain id %d", s.Networks()[0].ChainID)
	}
	for range 20 { // every call goes to the member on the right chain
		if code, body := rpc(t, http.DefaultClient, s.URL()+"/v3/"+s.GeneratedKey, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); code != 200 || !strings.Contains(body, `"0x539"`) {
			t.Fatalf("%d %s", code, body)
		}
	}
	// The dev node comes back on its port as a node of the other chain.
	addr := dev.addr
	dev.kill()
	testenv.WaitFor(t, 20*time.Second, "dev out", func() bool { return !status()["dev"].Healthy })
	startNode(t, chainDir, addr)
	testenv.WaitFor(t, 20*time.Second, "dev kept out after reconnecting", func() bool {
		return strings.Contains(status()["dev"].LastError, "kept out of service")
	})
	time.Sleep(time.Second)
	if m := status()["dev"]; m.Healthy {
		t.Fatalf("dev on another chain back in service: %+v", m)
	}
	if code, st := ready(t, s.URL()); code != 503 || !slices.Equal(st.Networks, []string{"main"}) {
		t.Fatalf("ready with no member on the chain: %d %+v", code, st)
	}
}

func adminUpstreams(t *testing.T, s *Service) []networkStatus {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+s.AdminAddr()+"/admin/upstreams", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []networkStatus
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func runKeys(args []string, stdout, stderr io.Writer) int { return keyscmd.Run(args, stdout, stderr) }

func keyID(key string) string { return keys.IDOf(keys.HashOf(key)) }

// TestReadyEmbeddedDefault: the embedded default (EVM dev chain and
// Starknet devnet) is ready at start: both pass their chain-id check.
func TestReadyEmbeddedDefault(t *testing.T) {
	cfg := config.Ephemeral(t.TempDir())
	s := start(t, cfg)
	if code, st := ready(t, s.URL()); code != 200 || st.Status != "ready" {
		t.Fatalf("embedded default: %d %+v", code, st)
	}
	for _, n := range s.Networks() {
		for _, m := range n.Pool.Status() {
			if !m.Healthy {
				t.Fatalf("%s/%s out: %s", n.Name, m.Name, m.LastError)
			}
		}
	}
}
