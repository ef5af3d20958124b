package ratelimit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
	"github.com/nodegate/nodegate/internal/testenv"
)

// madeUpBatch is a batch of n method names no node knows, unique per seed.
func madeUpBatch(seed, n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"eth_madeUp%d_%d","params":[]}`, i, seed, i)
	}
	b.WriteByte(']')
	return b.String()
}

// TestMadeUpMethodsDoNotGrowUsage: a core key sending 20 batches of 1,000
// made-up method names (refused with 429, or answered -32601) adds a small,
// fixed number of usage rows, whatever the names: they are all counted
// under (unknown).
func TestMadeUpMethodsDoNotGrowUsage(t *testing.T) {
	const batches, perBatch = 20, 1000
	dir := t.TempDir()
	cfg := config.Ephemeral(dir)
	cfg.NoStarknet = true
	cfg.RateLimit.UsageFlush = 200 * time.Millisecond
	s := startService(t, cfg)

	var out, errOut bytes.Buffer
	if code := keyscmd.Run([]string{"create", "--plan", "core", "--json", "--data-dir", dir}, &out, &errOut); code != 0 {
		t.Fatalf("keys create: %d %s", code, errOut.String())
	}
	var created struct{ ID, Key string }
	if err := json.Unmarshal(out.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "the new key", func() bool {
		status, _ := post(t, s.URL(), created.Key, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`)
		return status == http.StatusOK
	})
	refused := 0
	for b := range batches {
		status, body := post(t, s.URL(), created.Key, madeUpBatch(b, perBatch))
		switch status {
		case http.StatusTooManyRequests:
			refused++
		case http.StatusOK:
		default:
			t.Fatalf("batch %d: HTTP %d %.200s", b, status, body)
		}
	}
	closeService(s) // flushes the usage records

	store, err := keys.OpenSQLite(context.Background(), filepath.Join(dir, "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rows, err := (&keys.Manager{Store: store, Plans: keyconfig.Defaults()}).Usage(context.Background(), created.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	var requests int64
	madeUp := 0
	for _, r := range rows {
		if strings.Contains(r.Method, "madeUp") {
			madeUp++
		}
		requests += r.Requests
	}
	info, _ := os.Stat(filepath.Join(dir, "keys.db"))
	t.Logf("%d batches of %d made-up names (%d refused with 429): %d usage rows, %d requests counted, keys.db %d bytes",
		batches, perBatch, refused, len(rows), requests, info.Size())
	if madeUp > 0 || len(rows) > 3 {
		t.Fatalf("%d usage rows (%d of them a made-up name) after %d made-up names; first: %+v", len(rows), madeUp, batches*perBatch, rows[0])
	}
	if requests < batches*perBatch {
		t.Fatalf("%d requests counted, want at least %d (refused calls count too)", requests, batches*perBatch)
	}
}

// TestMadeUpMethodsUpstreamDown: with the upstream down, made-up eth_
// names (which the EVM family forwards) answer 503 but become neither a
// Prometheus series nor a log field: both say (unknown).
func TestMadeUpMethodsUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there any more

	cfg := config.Ephemeral(t.TempDir())
	cfg.NoStarknet = true
	cfg.Upstream = down
	cfg.Admin.Token = adminToken
	cfg.Plans["team"] = config.Plan{Failover: true} // no rate limit: this test is about names
	s := startService(t, cfg)

	var logs testenv.LogBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	status, body := post(t, s.URL(), s.GeneratedKey, madeUpBatch(7, 50))
	if status != http.StatusOK || !bytes.Contains(body, []byte("upstream unavailable")) {
		t.Fatalf("HTTP %d %.300s", status, body)
	}
	slog.SetDefault(prev)

	req, _ := http.NewRequest(http.MethodGet, "http://"+s.AdminAddr()+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics: HTTP %d", resp.StatusCode)
	}
	if bytes.Contains(metrics, []byte("madeUp")) {
		t.Errorf("a made-up name became a metric label:\n%s", grepLines(string(metrics), "madeUp"))
	}
	if !bytes.Contains(metrics, []byte(`method="(unknown)"`)) {
		t.Errorf("the unavailable calls are not counted under (unknown):\n%s", grepLines(string(metrics), "unavailable"))
	}
	got := logs.String()
	if strings.Contains(got, "madeUp") {
		t.Errorf("a made-up name became a log field:\n%s", grepLines(got, "madeUp"))
	}
	if !strings.Contains(got, "method=(unknown)") {
		t.Errorf("no upstream-unavailable log with method=(unknown):\n%.2000s", got)
	}
}

// grepLines keeps the lines of s that contain sub (at most 10).
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && len(out) < 10 {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
