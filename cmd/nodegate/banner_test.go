package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ident"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// bannerLine returns the banner line that starts with prefix (after the indent).
func bannerLine(t *testing.T, banner, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(banner, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), prefix))
		}
	}
	t.Fatalf("no %q line in\n%s", prefix, banner)
	return ""
}

// runShell runs a banner command line with sh and returns its output.
func runShell(t *testing.T, line string, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

func banner(svc *service.Service, keysCmd func(string) string) string {
	var b bytes.Buffer
	printBanner(&b, svc, keysCmd)
	return b.String()
}

// TestBannerLaterStart: on a start that did not create the key, the
// banner says how to get one, and its lines work as printed.
func TestBannerLaterStart(t *testing.T) {
	testenv.Program(t, "the banner's try: lines", "curl")
	cfg := servicetest.Config(t)
	first := servicetest.Start(t, cfg)
	if first.GeneratedKey == "" {
		t.Fatal("first start made no key")
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = first.Close(closeCtx)
	svc := servicetest.Start(t, cfg)
	bin := buildBinary(t)
	out := banner(svc, func(sub string) string { return bin + " keys " + sub + " --data-dir " + cfg.DataDir })
	if strings.Contains(bannerLine(t, out, "try:"), "<API_KEY>") {
		t.Fatalf("try line holds a placeholder:\n%s", out)
	}
	key := strings.TrimSpace(runShell(t, bannerLine(t, out, "new key:")+`; echo "$NODEGATE_KEY"`))
	if !ident.ValidKey(key) {
		t.Fatalf("new key line printed %q", key)
	}
	waitKey(t, svc, key)
	if got := runShell(t, bannerLine(t, out, "try:"), "NODEGATE_KEY="+key); !strings.Contains(got, `"result":"0x`) {
		t.Fatalf("try line answered %s", got)
	}
	// In a new shell, without NODEGATE_KEY, the try line makes a key and
	// answers all the same.
	if got := runShell(t, bannerLine(t, out, "try:"), "NODEGATE_KEY="); !strings.Contains(got, `"result":"0x`) {
		t.Fatalf("try line without NODEGATE_KEY answered %s", got)
	}
	if strings.Contains(out, "admin:") {
		t.Fatalf("admin line without an admin listener:\n%s", out)
	}
}

// TestBannerSelfSignedNoDefaultNetwork: under --tls-self-signed the try
// line trusts the local CA (--cacert, no -k), and it has a Host header
// when no network is the default.
func TestBannerSelfSignedNoDefaultNetwork(t *testing.T) {
	testenv.Program(t, "the banner's try: lines", "curl")
	cfg := servicetest.Config(t)
	cfg.TLS.SelfSigned = true
	cfg.Admin.Token = "banner-test-admin-token"
	cfg.Networks = []config.Network{{Name: "dev", Hosts: []string{"dev.localhost"}, Upstreams: []config.Upstream{{URL: config.EmbeddedURL}}}}
	svc := servicetest.Start(t, cfg)
	out := banner(svc, func(sub string) string { return "nodegate keys " + sub })
	try := bannerLine(t, out, "try:")
	if !strings.Contains(try, "curl -s --cacert "+svc.LocalCA.Path) || !strings.Contains(try, "-H 'Host: dev.localhost'") {
		t.Fatalf("try line %q", try)
	}
	if got := runShell(t, try); !strings.Contains(got, `"result":"0x`) {
		t.Fatalf("try line answered %s", got)
	}
	if !strings.Contains(out, "cast over wss fails") || !strings.Contains(out, "give cast the https URL") {
		t.Fatalf("the tls lines do not say cast fails over wss:\n%s", out)
	}
	if !strings.Contains(out, "network:   dev, chain id 1337") {
		t.Fatalf("no chain id line:\n%s", out)
	}
	// Every admin URL the banner prints answers (with the token), none 404s.
	admin := bannerLine(t, out, "admin:")
	base := "http://" + svc.AdminAddr()
	for _, path := range []string{"/admin/keys", "/admin/upstreams", "/metrics"} {
		if !strings.Contains(admin, path) {
			t.Fatalf("admin line %q lacks %s", admin, path)
		}
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+cfg.Admin.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
}

func waitKey(t *testing.T, svc *service.Service, key string) {
	t.Helper()
	testenv.WaitFor(t, 10*time.Second, "the new key to reach the server", func() bool {
		_, ok := svc.Keys.Lookup(key)
		return ok
	})
}

// buildBinary builds this command into the test's temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "nodegate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBannerNames: the host a pattern's Host header uses is one the
// pattern matches; a starknet network is called a devnet only when the
// embedded devnet serves it; a go run binary is named as go run.
func TestBannerNames(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"starknet.localhost", "starknet.localhost"},
		{"*.starknet.example.com", "rpc.starknet.example.com"},
	} {
		if got := hostOf(tc.pattern); got != tc.want {
			t.Errorf("hostOf(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
	juno := config.Network{Name: "sn", Family: "starknet", Upstreams: []config.Upstream{{Name: "juno", URL: "http://127.0.0.1:6060"}}}
	devnet := config.Network{Name: "sn", Family: "starknet", Upstreams: []config.Upstream{{Name: "local", URL: config.EmbeddedURL}}}
	if servesEmbedded(juno) || !servesEmbedded(devnet) {
		t.Error("servesEmbedded")
	}
	t.Setenv("GOCACHE", "/var/cache/gocache")
	for exe, want := range map[string]bool{
		"/tmp/go-build943482718/b001/exe/nodegate":      true,
		"/var/cache/gocache/3f/3fab12-d/nodegate":       true,
		"/srv/elsewhere/a0/a0b1c2-d/nodegate":           true,
		"/usr/local/bin/nodegate":                       false,
		"/home/me/src/nodegate/nodegate":                false,
		"/var/cache/gocache-other/nodegate-not-a-cache": false,
	} {
		if got := builtByGoRun(exe); got != want {
			t.Errorf("builtByGoRun(%s) = %v", exe, got)
		}
	}
}

// TestBannerStarknetDevnet: on the embedded default the banner gives the
// devnet's 0.8 path, which answers as printed, and lists its predeployed
// accounts with their keys.
func TestBannerStarknetDevnet(t *testing.T) {
	testenv.Program(t, "the banner's rpc v0_8: line", "curl")
	svc := servicetest.Start(t, servicetest.Config(t))
	out := banner(svc, func(sub string) string { return "nodegate keys " + sub })
	if svc.Devnet == nil {
		t.Fatal("the embedded default has no devnet")
	}
	line := bannerLine(t, out, "rpc v0_8:")
	if !strings.HasSuffix(line, "/v3/"+svc.GeneratedKey+"/rpc/v0_8") {
		t.Fatalf("0.8 line %q", line)
	}
	if got := runShell(t, line); got != `{"jsonrpc":"2.0","id":1,"result":"0.8.1"}` {
		t.Fatalf("the printed 0.8 line answered %s", got)
	}
	accs := svc.Devnet.Accounts()
	if len(accs) == 0 {
		t.Fatal("no predeployed accounts")
	}
	for _, a := range accs {
		if !strings.Contains(out, a.Address.String()+"  private key "+a.PrivateKey.String()+"  public key "+a.PublicKey.String()) {
			t.Fatalf("account %s not in the banner:\n%s", a.Address, out)
		}
	}
}

// TestBannerHostRouted: when every network is chosen by host name on the
// main listener, each line the banner prints reaches its network as
// printed: the try, rollup and rpc v0_8 lines carry the Host header, and
// the websocket and serving lines name the one to send.
func TestBannerHostRouted(t *testing.T) {
	testenv.Program(t, "the banner's curl lines", "curl")
	cfg := servicetest.Config(t)
	cfg.Networks = []config.Network{
		{Name: "dev", Hosts: []string{"dev.localhost"}, Upstreams: []config.Upstream{{URL: config.EmbeddedURL}}},
		{Name: "sn", Family: "starknet", Hosts: []string{"*.starknet.localhost"}, Upstreams: []config.Upstream{{URL: config.EmbeddedURL}}},
	}
	svc := servicetest.Start(t, cfg)
	out := banner(svc, func(sub string) string { return "nodegate keys " + sub })
	for _, tc := range []struct{ name, prefix, want string }{
		{"try", "try:", `"result":"0x`},
		{"rollup", "rollup:", `"result":`},
		{"rpc v0_8", "rpc v0_8:", `{"jsonrpc":"2.0","id":1,"result":"0.8.1"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := bannerLine(t, out, tc.prefix)
			line = line[strings.Index(line, "curl "):]
			if got := runShell(t, line); !strings.Contains(got, tc.want) {
				t.Fatalf("%s line answered %s\n%s", tc.prefix, got, out)
			}
		})
	}
	t.Run("websocket", func(t *testing.T) {
		line := bannerLine(t, out, "websocket:")
		url, note, _ := strings.Cut(line, "  ")
		_, host, ok := strings.Cut(note, "Host: ")
		if !ok {
			t.Fatalf("websocket line %q names no Host header", line)
		}
		host, _, _ = strings.Cut(host, ";")
		conn, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Host": {host}})
		if err != nil {
			t.Fatalf("dial %s with Host %s: %v (%v)", url, host, err, resp)
		}
		defer conn.Close()
		if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)); err != nil {
			t.Fatal(err)
		}
		_, msg, err := conn.ReadMessage()
		if err != nil || string(msg) != `{"jsonrpc":"2.0","id":1,"result":"0x539"}` {
			t.Fatalf("websocket answered %s, %v", msg, err)
		}
	})
	if !strings.Contains(bannerLine(t, out, "nodegate "), "Host: dev.localhost") {
		t.Fatalf("serving line names no Host header:\n%s", out)
	}
}
