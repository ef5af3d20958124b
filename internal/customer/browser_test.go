package customer_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// failingUpstream is a real node behind a proxy that fails
// eth_getTransactionReceipt (HTTP 502) and passes every other call: a
// pool that cannot answer a failover-eligible method, whose partner (the
// same node, reached directly) can.
type failingUpstream struct {
	node  *evmnode.Node
	proxy string
}

func startFailingUpstream(t *testing.T) *failingUpstream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := evmnode.Start(ctx, evmnode.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := n.HTTPEndpoint()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if bytes.Contains(body, []byte("eth_getTransactionReceipt")) {
			http.Error(w, "receipts are down here", http.StatusBadGateway)
			return
		}
		resp, err := http.Post(target, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &failingUpstream{node: n, proxy: "http://" + ln.Addr().String()}
}

// withFailover serves one network through the failing proxy, with the
// node itself as the partner.
func (f *failingUpstream) withFailover(cfg *config.Config) {
	cfg.Networks = []config.Network{{
		Name: "devnet", Family: "evm",
		Upstreams: []config.Upstream{{Name: "primary", URL: f.proxy}},
		Partners:  []config.Partner{{Name: "partner", URL: f.node.HTTPEndpoint()}},
		Pool:      config.Pool{AttemptTimeout: 3 * time.Second, MaxAttempts: 1},
	}}
}

// chrome starts headless Chromium driven through CDP; the browser ends
// with the test.
func chrome(t *testing.T) context.Context {
	t.Helper()
	bin := testenv.Program(t, "the customer dashboard journey (a real browser)", "chromium", "chromium-browser")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// do runs browser steps within a minute, failing the test with the page
// it was on.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%s: %v\npage:\n%s", what, err, pageText(ctx))
	}
}

// text reads the text of the element sel on the current page.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s: %v\npage:\n%s", sel, err, pageText(ctx))
	}
	return s
}

// pageText is the current page's main text, for failure messages.
func pageText(ctx context.Context) string {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(sctx, chromedp.OuterHTML(chromedp.CSS("body")))
	return s
}

// shot saves a screenshot of the page for docs/dashboard.md when
// NODEGATE_DASHBOARD_SHOTS names a directory.
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("NODEGATE_DASHBOARD_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// journey drives the whole customer journey in the browser: a and b are
// the replicas it alternates between (the same service for one replica).
func journey(t *testing.T, ctx context.Context, a, b *service.Service) {
	do(t, ctx, "sign up on "+a.URL(),
		chromedp.Navigate(a.URL()+"/dashboard/signup"),
		chromedp.SendKeys(chromedp.ID("email"), "journey@example.com"),
		chromedp.SendKeys(chromedp.ID("password"), "a long enough password"),
		chromedp.SendKeys(chromedp.ID("password2"), "a long enough password"),
		chromedp.Click(chromedp.ID("signup")),
		chromedp.WaitVisible(chromedp.ID("create-form")),
	)
	shot(t, ctx, "keys-empty")
	do(t, ctx, "create a key on "+b.URL(),
		chromedp.Navigate(b.URL()+"/dashboard/keys"),
		chromedp.SendKeys(chromedp.ID("key-name"), "journey app"),
		chromedp.Click(chromedp.ID("create")),
		chromedp.WaitVisible(chromedp.ID("url-http-0")),
	)
	url0 := text(t, ctx, "#url-http-0")
	shot(t, ctx, "created")
	keyID := text(t, ctx, "#new-key-id")
	if !strings.HasPrefix(url0, b.URL()+"/v3/") {
		t.Fatalf("the page shows %q, want a URL of %s", url0, b.URL())
	}
	// The same key on the other replica: its URL with a's address.
	urlA := a.URL() + strings.TrimPrefix(url0, b.URL())
	eventually(t, "eth_blockNumber with the key from the page", func() bool { code, _ := rpc(t, urlA, "eth_blockNumber"); return code == 200 })

	eventually(t, "the usage page shows the call", func() bool {
		do(t, ctx, "open the usage page", chromedp.Navigate(a.URL()+"/dashboard/keys/"+keyID+"/usage"))
		return strings.Contains(text(t, ctx, "main"), "eth_blockNumber")
	})
	shot(t, ctx, "usage")

	receipt := `{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionReceipt","params":["0x` + strings.Repeat("ab", 32) + `"]}`
	if code, _, fw := post(t, urlA, receipt); code != http.StatusServiceUnavailable || fw != "" {
		t.Fatalf("before the upgrade a core key got %d (forwarded to %q), want 503 and no failover", code, fw)
	}
	do(t, ctx, "upgrade on "+b.URL(),
		chromedp.Navigate(b.URL()+"/dashboard/plan"),
		chromedp.Click(chromedp.ID("upgrade")),
		chromedp.WaitVisible(chromedp.ID("notice")),
	)
	shot(t, ctx, "plan")
	eventually(t, "the partner answers the failover method for the upgraded key", func() bool {
		code, _, fw := post(t, urlA, receipt)
		return code == 200 && fw == "partner"
	})

	do(t, ctx, "revoke on "+b.URL(),
		chromedp.Navigate(b.URL()+"/dashboard/keys/"+keyID),
		chromedp.Click(chromedp.ID("revoke")),
		chromedp.WaitVisible(chromedp.ID("confirm-revoke")),
		chromedp.Click(chromedp.ID("confirm-revoke")),
		chromedp.WaitVisible(chromedp.ID("notice")),
	)
	if st := text(t, ctx, "#key-status"); st != "revoked" {
		t.Fatalf("after revoking, the key page says %q", st)
	}
	eventually(t, "the revoked key answers 401 on "+a.URL(), func() bool { code, _ := rpc(t, urlA, "eth_blockNumber"); return code == 401 })
}

// post sends a body and returns the status, the body and the partner that
// answered (X-Nodegate-Forwarded-To, header or trailer).
func post(t *testing.T, url, body string) (int, string, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fw := resp.Header.Get("X-Nodegate-Forwarded-To")
	if fw == "" {
		fw = resp.Trailer.Get("X-Nodegate-Forwarded-To")
	}
	return resp.StatusCode, string(b), fw
}

// TestBrowserJourney: the whole journey in headless Chromium on one
// replica (SQLite, limits in memory).
func TestBrowserJourney(t *testing.T) {
	ctx := chrome(t)
	up := startFailingUpstream(t)
	s := start(t, up.withFailover)
	journey(t, ctx, s, s)
}

// TestBrowserJourneyTwoReplicas: the same journey on two replicas sharing
// PostgreSQL and Redis: signed up on one, the key made, the plan upgraded
// and the key revoked on the other, and called on the first.
func TestBrowserJourneyTwoReplicas(t *testing.T) {
	ctx := chrome(t)
	dsn := pgtest.DSN(t)
	rc := redistest.Require(t)
	prefix := redistest.Prefix(t, rc)
	up := startFailingUpstream(t)
	fleet := func(cfg *config.Config) {
		up.withFailover(cfg)
		cfg.DatabaseURL = dsn
		cfg.RateLimit.RedisURL = "redis://" + redistest.Addr() + "/0"
		cfg.RateLimit.RedisPrefix = prefix
	}
	a := start(t, fleet)
	b := start(t, fleet)
	journey(t, ctx, a, b)
}
