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
	svc := servicetest.Start(t, servicetest.Config(t))
	out := banner(svc, func(sub string) string { return "nodegate keys " + sub })
	if svc.Devnet == nil {
		t.Fatal("the embedded default has no devnet")
	}
	line := bannerLine(t, out, "Starknet JSON-RPC")
	i := strings.Index(line, "http")
	url, _, _ := strings.Cut(line[i:], " ")
	if !strings.HasSuffix(url, "/v3/"+svc.GeneratedKey+"/rpc/v0_8") {
		t.Fatalf("0.8 path %q in %q", url, line)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"starknet_specVersion","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	if body.String() != `{"jsonrpc":"2.0","id":1,"result":"0.8.1"}` {
		t.Fatalf("the printed 0.8 path answered %d %s", resp.StatusCode, body.String())
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
