package reorgtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// HAProxy is a fleet's front as operators run one: Debian's haproxy on
// loopback, balancing round robin over targets (base URLs), a new choice
// for each request (HTTP keep-alive does not pin a client to a replica)
// and each WebSocket connection; each answer names its replica in
// X-Replica (r0, r1, … in targets' order, for a trace). It returns the
// front's base URL and stops haproxy when the test ends. A fleet's run
// starts a second one in front of the first member alone: the balanced
// baseline (Case.Balancer). Without haproxy installed the test
// fails under CI (.ci/run installs it) and is skipped elsewhere.
func HAProxy(t testing.TB, targets []string) string {
	t.Helper()
	bin := testenv.Program(t, "the reorg harness's fleet front", "haproxy")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	front := ln.Addr().String()
	ln.Close() // haproxy binds it below; nothing else here listens on a port the OS gave
	var servers strings.Builder
	for i, raw := range targets {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("front target %q: %v", raw, err)
		}
		fmt.Fprintf(&servers, "  server r%d %s\n", i, u.Host)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, `global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  timeout http-keep-alive 5s
frontend rpc
  bind %s
  default_backend nodegate
backend nodegate
  balance roundrobin
  http-response set-header X-Replica %%[srv_name]
%s`, front, servers.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-f", cfg, "-db")
	var out testenv.LogBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", out.String())
		}
	})
	testenv.WaitFor(t, 30*time.Second, "haproxy to listen on "+front, func() bool {
		c, err := net.DialTimeout("tcp", front, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return "http://" + front
}
