package service_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestOneKeyCannotHoldEveryConnection: a key whose plan allows
// max_connections 3 opens 30 keep-alive connections on a listener that
// holds 12, each with an admitted request, and keeps them open: three are
// kept, every other one is answered and closed (Connection: close), so
// another key's new connection is still accepted and served. A request
// refused for the key's rate does not key its connection either (it stays
// within its address's bound and is closed when idle). Connections over
// the listener's bound are counted in nodegate_connections_refused_total.
func TestOneKeyCannotHoldEveryConnection(t *testing.T) {
	const perKey, perListener, tries = 3, 12, 30
	s := start(t, func(c *config.Config) {
		c.Metrics.Listen = "127.0.0.1:0"
		c.Plans["small"] = config.Plan{MaxConnections: perKey}
		c.Plans["broke"] = config.Plan{DailyCredits: 1}
		c.Limits.Connections = config.Connections{MaxPerListener: perListener, KeylessIdleTimeout: 300 * time.Millisecond}
	})
	ctx := context.Background()
	a, err := s.KeyManager.Create(ctx, keys.CreateParams{Name: "holder", Plan: "small"})
	if err != nil {
		t.Fatal(err)
	}
	dial := func() *testenv.KeptConn {
		c, err := testenv.DialKept(t, s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	kept := 0
	for i := range tries {
		c := dial()
		status, closing, err := c.Post("/v3/" + a.Key)
		if err != nil || status != http.StatusOK {
			t.Fatalf("holder's connection %d: %d %v (closed at accept: the key's connections hold the listener)", i, status, err)
		}
		if !closing {
			kept++
			continue
		}
		// The server closes it after the answer; wait for that, so that
		// the next one finds its place free.
		if !closedByServer(c, 10*time.Second) {
			t.Fatalf("holder's connection %d was answered with Connection: close and left open", i)
		}
	}
	if kept != perKey {
		t.Fatalf("the holder kept %d connections, want its plan's %d", kept, perKey)
	}
	// Another key's new connection is accepted and served, and kept.
	testenv.WaitFor(t, 10*time.Second, "the other key served on a new connection", func() bool {
		c := dial()
		status, closing, err := c.Post("/v3/" + s.GeneratedKey)
		return err == nil && status == http.StatusOK && !closing
	})

	// A request refused for the key's daily credits does not key its
	// connection: it is closed once idle for the keyless idle timeout.
	broke, err := s.KeyManager.Create(ctx, keys.CreateParams{Name: "broke", Plan: "broke"})
	if err != nil {
		t.Fatal(err)
	}
	c := dial()
	if status, _, err := c.Post("/v3/" + broke.Key); err != nil || status != http.StatusTooManyRequests {
		t.Fatalf("a key without credits answered %d %v, want 429", status, err)
	}
	if !closedByServer(c, 20*time.Second) {
		t.Fatal("a connection whose only request was refused for credits was kept as keyed")
	}

	// Over the listener's bound, connections are closed at accept and
	// counted by the bound that refused them.
	var refused bool
	for range perListener + 1 {
		c := dial()
		if _, _, err := c.Post("/v3/0123456789abcdef0123456789abcdef"); err != nil {
			refused = true
			break
		}
	}
	if !refused {
		t.Fatal("no connection over max_per_listener was refused")
	}
	resp, err := http.Get("http://" + s.MetricsAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(page), `nodegate_connections_refused_total{bound="listener"} `) ||
		strings.Contains(string(page), `nodegate_connections_refused_total{bound="listener"} 0`) {
		t.Fatalf("the refusal at accept is not counted:\n%s", grepLines(string(page), "nodegate_connections_refused_total"))
	}
}

// grepLines is the lines of page that contain s.
func grepLines(page, s string) string {
	var out []string
	for _, l := range strings.Split(page, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
