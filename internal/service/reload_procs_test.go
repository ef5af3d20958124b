package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nodegate/nodegate/internal/cli/planscmd"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestReloadOnSIGHUP: a real process re-reads its config on SIGHUP
// (limits, the network's upstream, the log level) without dropping a
// keep-alive connection or a WebSocket; an invalid file, or a change that
// needs a restart, is refused with a log line and the running config
// kept.
func TestReloadOnSIGHUP(t *testing.T) {
	a := startNode(t, "", "127.0.0.1:0")
	b := startNode(t, "", "127.0.0.1:0")
	dir := t.TempDir()
	plans := "team: { rate_per_second: 0 }"
	conf := func(maxBatch int, up, level, extra string) string {
		return fmt.Sprintf("listen: 127.0.0.1:0\ndata_dir: %s/data\nupstream: %s\nadmin: { listen: 127.0.0.1:0, token: %s }\nplans: { %s }\nlimits: { max_batch: %d }\nlog: { level: %s }\n%s",
			dir, up, adminToken, plans, maxBatch, level, extra)
	}
	path := writeConfig(t, dir, conf(1000, a.url(), "info", ""))
	p := startServe(t, nil, "--config", path)
	endpoint := p.url + "/v3/" + p.key
	batch := func(n int) string {
		calls := make([]string, n)
		for i := range calls {
			calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_chainId","params":[]}`, i)
		}
		return "[" + strings.Join(calls, ",") + "]"
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	var reused, fresh int
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if info.Reused {
			reused++
		} else {
			fresh++
		}
	}}
	post := func(body string) (int, string) {
		ctx := httptrace.WithClientTrace(context.Background(), trace)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		defer resp.Body.Close()
		var buf strings.Builder
		_, _ = fmt.Fprint(&buf, readAll(resp))
		return resp.StatusCode, buf.String()
	}
	if code, body := post(batch(3)); code != 200 || strings.Contains(body, "too large") {
		t.Fatalf("batch of 3 before the reload: %d %s", code, body)
	}
	ws, _, err := websocket.DefaultDialer.Dial(strings.Replace(p.url, "http", "ws", 1)+"/ws/v3/"+p.key, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	wsCall := func() string {
		_ = ws.SetReadDeadline(time.Now().Add(20 * time.Second))
		if err := ws.WriteMessage(websocket.TextMessage, []byte(blockNumberCall)); err != nil {
			t.Fatalf("WebSocket write: %v", err)
		}
		_, msg, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("WebSocket read after reload: %v", err)
		}
		return string(msg)
	}
	wsCall()

	if code := createKeyOnPlan(t, p, "gold"); code != http.StatusBadRequest {
		t.Fatalf("admin API key on a plan not configured: %d, want 400", code)
	}

	// A valid change: max_batch 2, another upstream, debug log level, a new plan.
	plans = "team: { rate_per_second: 0 }, gold: { rate_per_second: 0 }"
	if err := os.WriteFile(path, []byte(conf(2, b.url(), "debug", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGHUP)
	testenv.WaitFor(t, 20*time.Second, "reload applied", func() bool {
		_, body := post(batch(3))
		return strings.Contains(body, "batch too large")
	})
	if code, body := post(batch(2)); code != 200 || strings.Contains(body, "error") {
		t.Fatalf("batch of 2 after the reload: %d %s", code, body)
	}
	if got := upstreamNames(t, p); got != b.addr {
		t.Fatalf("upstream after the reload: %q, want %q", got, b.addr)
	}
	if !strings.Contains(wsCall(), `"result"`) {
		t.Fatal("the WebSocket opened before the reload does not answer")
	}
	if fresh != 1 {
		t.Fatalf("the keep-alive connection was dropped: %d connections made, %d reused", fresh, reused)
	}
	// A DEBUG line comes when something logs at that level (a call, a
	// head poll): on a loaded machine not always before this line runs.
	testenv.WaitFor(t, 20*time.Second, "a DEBUG log line (the log level applied)", func() bool {
		if strings.Contains(p.output(), "level=DEBUG") {
			return true
		}
		post(batch(2))
		return false
	})
	// The file's new plan is not the fleet's until the operator pushes it
	// (the key store holds plans): the reload says so, loudly.
	if code := createKeyOnPlan(t, p, "gold"); code != http.StatusBadRequest {
		t.Fatalf("admin API key on a plan reloaded but not pushed: %d, want 400", code)
	}
	if !strings.Contains(p.output(), "PLANS NOT APPLIED") {
		t.Fatalf("the reload of changed plans did not warn:\n%s", p.output())
	}
	var out, errOut strings.Builder
	if code := planscmd.Run([]string{"push", "--config", path}, &out, &errOut); code != 0 {
		t.Fatalf("nodegate plans push: exit %d: %s%s", code, out.String(), errOut.String())
	}
	testenv.WaitFor(t, 20*time.Second, "the pushed plan applied", func() bool {
		code := createKeyOnPlan(t, p, "gold")
		return code == http.StatusCreated || code == http.StatusOK
	})

	// An invalid file: refused, logged, the running config kept.
	if err := os.WriteFile(path, []byte(conf(2, b.url(), "debug", "limits_typo: 1\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGHUP)
	testenv.WaitFor(t, 20*time.Second, "refusal logged", func() bool {
		return strings.Contains(p.output(), "configuration NOT reloaded") && strings.Contains(p.output(), "unknown field limits_typo")
	})
	// A change that needs a restart: refused whole.
	if err := os.WriteFile(path, []byte(strings.Replace(conf(500, a.url(), "info", ""), "listen: 127.0.0.1:0", "listen: 127.0.0.1:1", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	p.signal(syscall.SIGHUP)
	testenv.WaitFor(t, 20*time.Second, "restart-only refusal logged", func() bool {
		return strings.Contains(p.output(), "listen changed: these take effect only on a restart")
	})
	if _, body := post(batch(3)); !strings.Contains(body, "batch too large") {
		t.Fatalf("running config not kept: %s", body)
	}
	if got := upstreamNames(t, p); got != b.addr {
		t.Fatalf("upstream after refused reloads: %q", got)
	}
	if fresh != 1 {
		t.Fatalf("connections made: %d", fresh)
	}
	select {
	case <-p.done:
		t.Fatalf("the process exited on SIGHUP:\n%s", p.output())
	default:
	}
}

// upstreamNames lists the default network's upstreams from /admin/upstreams.
// adminAddr is the admin listener's address, as the banner prints it.
func adminAddr(p *serveProc) string {
	var addr string
	for _, l := range strings.Split(p.output(), "\n") {
		if i := strings.Index(l, "admin:     http://"); i >= 0 {
			addr = strings.Fields(l[i+len("admin:     http://"):])[0]
			addr = strings.TrimSuffix(strings.SplitN(addr, "/", 2)[0], ",")
		}
	}
	return addr
}

// createKeyOnPlan asks the admin API for a key on plan; it returns the status.
func createKeyOnPlan(t *testing.T, p *serveProc, plan string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+adminAddr(p)+"/admin/keys", strings.NewReader(`{"name":"reloaded","plan":"`+plan+`"}`))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func upstreamNames(t *testing.T, p *serveProc) string {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+adminAddr(p)+"/admin/upstreams", nil)
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
	var names []string
	for _, m := range out[0].Upstreams {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

func readAll(resp *http.Response) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}
