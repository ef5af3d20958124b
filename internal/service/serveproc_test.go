package service

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

// serveProc is a `nodegate serve` process of the built binary.
type serveProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string // base URL of the main listener
	key  string // the API key the banner printed ("" when none)
	mu   sync.Mutex
	out  bytes.Buffer // stdout and stderr
	done chan struct{}
	code int
}

// syncWriter appends to the process's output under its lock.
type syncWriter struct{ p *serveProc }

func (w syncWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

// startServe starts `nodegate serve args...` and waits for its banner.
func startServe(t *testing.T, env []string, args ...string) *serveProc {
	t.Helper()
	p := &serveProc{t: t, done: make(chan struct{})}
	p.cmd = exec.Command(nodegateBinary(t), append([]string{"serve"}, args...)...)
	p.cmd.Env = append(os.Environ(), env...)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = syncWriter{p}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	banner := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			_, _ = syncWriter{p}.Write([]byte(line + "\n"))
			if !sent && strings.Contains(line, "Ctrl-C stops nodegate") {
				banner <- p.output()
				sent = true
			}
		}
		_ = p.cmd.Wait()
		p.code = p.cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	select {
	case b := <-banner:
		for _, l := range strings.Split(b, "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) >= 4 && f[0] == "nodegate" && f[2] == "serving":
				p.url = strings.TrimSuffix(f[3], "/v3/<API_KEY>")
			case len(f) >= 3 && f[0] == "API" && f[1] == "key:":
				p.key = f[2]
			}
		}
	case <-p.done:
		t.Fatalf("nodegate serve exited %d before its banner:\n%s", p.code, p.output())
	case <-time.After(90 * time.Second):
		t.Fatalf("nodegate serve printed no banner within 90s:\n%s", p.output())
	}
	return p
}

func (p *serveProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *serveProc) signal(sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// wait waits for the process to exit and returns its exit code.
func (p *serveProc) wait(d time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		p.t.Fatalf("nodegate serve still running after %v:\n%s", d, p.output())
		return -1
	}
}

func (p *serveProc) kill() {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// writeConfig writes a config file in a temporary directory.
func writeConfig(t *testing.T, dir, yaml string) string {
	t.Helper()
	path := filepath.Join(dir, "nodegate.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rpc posts body to url and returns the status and the body.
func rpc(t *testing.T, client *http.Client, url, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status, b, err := testenv.Post(ctx, client, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, string(b)
}

// ready is GET /ready's status and body.
func ready(t *testing.T, base string) (int, readyStatus) {
	t.Helper()
	resp, err := http.Get(base + "/ready")
	if err != nil {
		t.Fatalf("GET /ready: %v", err)
	}
	defer resp.Body.Close()
	var st readyStatus
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("GET /ready body: %v", err)
	}
	return resp.StatusCode, st
}
