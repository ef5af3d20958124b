package docexamples

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// The docs, from this package's folder.
const root = "../.."

// starknetJSDir has the npm packages a js example imports (starknet.js 10,
// the current one; TestStarknetJS runs 7 too).
const starknetJSDir = "../service/testdata/starknetjs/v10"

// docs lists README.md and docs/*.md.
func docs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// TestDocExamples runs every fenced block of README.md and docs/*.md as
// printed (README.md, "Examples in these docs"): yaml blocks are loaded
// and validated as config files (and started when marked start), sh and
// bash blocks run against a started nodegate, js blocks run with Node.js;
// a block marked not run has its reason logged. Any other block fails.
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts nodegate; not in -short") // testing.Short(): CI never passes -short
	}
	var blocks []Block
	for _, f := range docs(t) {
		bs, err := Blocks(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, bs...)
	}
	env := &docEnv{t: t}
	for _, b := range blocks {
		kind, reason, err := KindOf(b)
		name := strings.TrimPrefix(b.Name(), root+"/")
		t.Run(name, func(t *testing.T) {
			if err != nil {
				t.Fatal(err)
			}
			switch kind {
			case NotRun:
				t.Logf("not run: %s", reason)
			case Config:
				loadConfig(t, b.Body)
			case Start:
				startConfig(t, env.binary(), b.Body)
			case Shell, ShellErrors:
				env.server().shell(t, b.Body, kind == ShellErrors)
			case Node:
				env.server().node(t, b.Body)
			}
		})
	}
}

// docEnv builds nodegate and starts the shared server once, when a block
// first needs them.
type docEnv struct {
	t   *testing.T
	bin string
	srv *server
}

func (e *docEnv) binary() string {
	if e.bin == "" {
		e.bin = buildNodegate(e.t)
	}
	return e.bin
}

func (e *docEnv) server() *server {
	if e.srv == nil {
		e.srv = startServer(e.t, e.binary())
	}
	return e.srv
}

func buildNodegate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin", "nodegate")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/nodegate").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// placeholders sets each ${NAME} of a config example that the
// environment lacks to a placeholder, as a reader would export it.
func placeholders(t *testing.T, body string) {
	for _, m := range regexp.MustCompile(`\$\{(\w+)\}`).FindAllStringSubmatch(body, -1) {
		if _, ok := os.LookupEnv(m[1]); !ok {
			t.Setenv(m[1], "placeholder-"+strings.ToLower(m[1]))
		}
	}
}

func loadConfig(t *testing.T, body string) {
	placeholders(t, body)
	path := filepath.Join(t.TempDir(), "nodegate.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("as a config file: %v\n%s", err, body)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("as a config file: %v\n%s", err, body)
	}
}

// defaultPorts are the addresses the docs print and what the test serves
// instead (README.md, "Examples in these docs").
var defaultPorts = []string{"127.0.0.1:8545", "127.0.0.1:8546", "127.0.0.1:8547"}

// startConfig starts nodegate with the block as its config file (its
// default addresses on ports the system picks) and stops it with SIGTERM.
func startConfig(t *testing.T, bin, body string) {
	placeholders(t, body)
	for _, addr := range defaultPorts {
		body = strings.ReplaceAll(body, addr, "127.0.0.1:0")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nodegate.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	p := run(t, bin, dir, []string{"NODEGATE_ADMIN_TOKEN="}, "--config", "nodegate.yaml")
	p.waitBanner(t)
	p.stop(t)
}

// proc is a nodegate process and what it printed.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	out   strings.Builder
}

func run(t *testing.T, bin, dir string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), lines: make(chan string, 1024)}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), env...)
	r, w := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = w, w
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	go func() { _ = p.cmd.Wait(); w.Close() }()
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

// waitBanner reads output up to the banner's last line.
func (p *proc) waitBanner(t *testing.T) {
	t.Helper()
	deadline := time.After(3 * time.Minute)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("nodegate ended before its banner:\n%s", p.out.String())
			}
			p.out.WriteString(l + "\n")
			if strings.Contains(l, "Ctrl-C stops nodegate.") {
				return
			}
		case <-deadline:
			t.Fatalf("no banner after 3 minutes:\n%s", p.out.String())
		}
	}
}

func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	for l := range p.lines {
		p.out.WriteString(l + "\n")
	}
	if st := p.cmd.ProcessState; st == nil || !st.Success() {
		t.Fatalf("nodegate did not stop cleanly (%v):\n%s", st, p.out.String())
	}
}

// server is the nodegate the shell and js examples run against: the
// embedded default with an admin token, its files in dir.
type server struct {
	dir, bin              string
	key, adminToken       string
	main, admin, starknet string // the addresses that stand for defaultPorts
}

func startServer(t *testing.T, bin string) *server {
	t.Helper()
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	s := &server{dir: t.TempDir(), bin: bin, adminToken: hex.EncodeToString(tok)}
	p := run(t, bin, s.dir, []string{"NODEGATE_ADMIN_TOKEN=" + s.adminToken},
		"--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--starknet-listen", "127.0.0.1:0")
	p.waitBanner(t)
	banner := p.out.String()
	find := func(re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(banner)
		if m == nil {
			t.Fatalf("no %s in the banner:\n%s", re, banner)
		}
		return m[1]
	}
	s.key = find(`API key:\s+([0-9a-f]{32})`)
	s.main = find(`serving http://([0-9.:]+)/v3/`)
	s.admin = find(`admin:\s+http://([0-9.:]+)/admin/keys`)
	s.starknet = find(`starknet:\s+http://([0-9.:]+)/v3/`)
	go func() { // keep reading, so that its logs never block it
		for range p.lines {
		}
	}()
	return s
}

// text is body with the docs' default addresses replaced by the server's.
func (s *server) text(body string) string {
	for i, addr := range []string{s.main, s.admin, s.starknet} {
		body = strings.ReplaceAll(body, defaultPorts[i], addr)
	}
	return body
}

// env is what a reader's shell holds after following the docs: nodegate
// on PATH, the printed key in NODEGATE_KEY, the admin token the server was
// started with in NODEGATE_ADMIN_TOKEN.
func (s *server) env() []string {
	return append(os.Environ(), "PATH="+filepath.Dir(s.bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NODEGATE_KEY="+s.key, "NODEGATE_ADMIN_TOKEN="+s.adminToken)
}

// shellPrelude makes a failing command fail the example: errexit, and
// curl failing on an HTTP error status.
const shellPrelude = `set -euo pipefail
curl() { command curl --fail-with-body --max-time 60 "$@"; }
`

func (s *server) shell(t *testing.T, body string, errorsAnswered bool) {
	testenv.Program(t, "the shell examples", "bash")
	testenv.Program(t, "the shell examples", "curl")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", shellPrelude+s.text(body))
	cmd.Dir = s.dir
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, s.text(body))
	}
	if !errorsAnswered && strings.Contains(string(out), `"error":{`) {
		t.Fatalf("a call answered an error")
	}
}

func (s *server) node(t *testing.T, body string) {
	testenv.Program(t, "the js examples", "node")
	testenv.NPMCI(t, starknetJSDir, `"node_modules/starknet": {`+"\n"+`      "version": "10.8.0"`)
	file := filepath.Join(starknetJSDir, fmt.Sprintf("doc-example-%d.mjs", time.Now().UnixNano()))
	if err := os.WriteFile(file, []byte(s.text(body)), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Base(file))
	cmd.Dir = starknetJSDir
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node: %v", err)
	}
}
