package admin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

const dashToken = "dashboard-test-token"

// runChromium runs headless Chromium with a fresh profile on url plus extra
// flags and returns its standard output.
func runChromium(t *testing.T, bin, url string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=15000", "--window-size=1280,1400",
	}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, errb.String())
	}
	return out.Bytes()
}

func adminCall(t *testing.T, s *service.Service, method, path, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+s.AdminAddr()+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+dashToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return b
}

// dashboardService starts nodegate, creates a key, sends it 7 calls and 2
// of an unknown method, and waits for the usage records to hold them.
func dashboardService(t *testing.T) (s *service.Service, keyID string) {
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	cfg.Admin.Token = dashToken
	cfg.RateLimit.UsageFlush = 100 * time.Millisecond
	cfg.Plans["team"] = config.Plan{Failover: true}
	s = servicetest.Start(t, cfg)
	var created struct{ ID, Key string }
	if err := json.Unmarshal(adminCall(t, s, "POST", "/admin/keys", `{"name":"dashboard-owner-7","plan":"team"}`), &created); err != nil {
		t.Fatal(err)
	}
	call := func(method string) int {
		resp, err := http.Post(s.URL()+"/v3/"+created.Key, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The new key reaches the key cache within key_refresh: 401 until then.
	testenv.WaitFor(t, 30*time.Second, "the created key to become usable", func() bool { return call("eth_blockNumber") == 200 })
	for i := range 8 {
		method := "eth_blockNumber"
		if i >= 6 {
			method = "eth_noSuchMethod"
		}
		call(method)
	}
	testenv.WaitFor(t, 30*time.Second, "usage records to show the 7 calls", func() bool {
		return strings.Contains(string(adminCall(t, s, "GET", "/admin/keys/"+created.ID+"/usage", "")), `"requests": 7`)
	})
	return s, created.ID
}

// TestDashboardInChromium: the page, opened with #token= in a real
// browser, renders the created key's name and its usage numbers (from the
// admin JSON routes) and the upstreams; without a token it asks for one.
func TestDashboardInChromium(t *testing.T) {
	bin := testenv.Program(t, "the dashboard test (a real browser)", "chromium", "chromium-browser")
	s, id := dashboardService(t)
	base := "http://" + s.AdminAddr() + "/dashboard/"

	dom := string(runChromium(t, bin, base+"#token="+dashToken+"&key="+id, "--dump-dom"))
	for _, want := range []string{
		"dashboard-owner-7",            // the key's name in the keys table
		`<td class="num">7</td>`,       // eth_blockNumber's requests in the usage table
		`id="total-requests">9<`,       // every call of the key, the unknown ones included
		"(unknown)",                    // the unknown method, by its label
		"in service",                   // the embedded upstream's state
		`<td class="num floor">0</td>`, // the embedded upstream's floors (an archive: block 0)
		`class="bar"`,                  // the charts were drawn
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("dashboard DOM lacks %q", want)
		}
	}
	if strings.Contains(dom, "eth_noSuchMethod") {
		t.Error("the dashboard shows a made-up method name")
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}

	login := string(runChromium(t, bin, base, "--dump-dom"))
	if !strings.Contains(login, `<section id="login">`) || strings.Contains(login, "dashboard-owner-7") {
		t.Errorf("without a token the page should show only the login form:\n%s", login)
	}
	wrong := string(runChromium(t, bin, base+"#token=wrong", "--dump-dom"))
	if !strings.Contains(wrong, "refused") || strings.Contains(wrong, "dashboard-owner-7") {
		t.Errorf("a wrong token should be refused:\n%s", wrong)
	}
}

// TestDashboardScreenshot fails on an empty page: the rendered dashboard
// must not be one colour.
func TestDashboardScreenshot(t *testing.T) {
	bin := testenv.Program(t, "the dashboard test (a real browser)", "chromium", "chromium-browser")
	s, id := dashboardService(t)
	shot := filepath.Join(t.TempDir(), "dashboard.png")
	if keep := os.Getenv("NODEGATE_DASHBOARD_SHOT"); keep != "" {
		shot = keep // to look at the page by eye
	}
	runChromium(t, bin, "http://"+s.AdminAddr()+"/dashboard/#token="+dashToken+"&key="+id, "--screenshot="+shot, "--hide-scrollbars")
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	colours := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			colours[[4]uint32{r, g, bl, a}] = true
		}
	}
	if len(colours) < 20 {
		t.Fatalf("the screenshot has %d colours: an empty page", len(colours))
	}
}

// TestDashboardAssets: the page and its assets are served from the binary
// without the token, with a strict content security policy; the data
// routes still need the token.
func TestDashboardAssets(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	cfg.Admin.Token = dashToken
	s := servicetest.Start(t, cfg)
	for path, want := range map[string]string{"/dashboard/": "<title>nodegate dashboard</title>", "/dashboard/app.js": "/admin/keys", "/dashboard/style.css": "font"} {
		resp, err := http.Get("http://" + s.AdminAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, body lacks %q", path, resp.StatusCode, want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("%s: CSP %q", path, csp)
		}
	}
	resp, err := http.Get("http://" + s.AdminAddr() + "/admin/keys")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("/admin/keys without the token: %d, want 401", resp.StatusCode)
	}
}
