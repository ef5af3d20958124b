package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds this command once per test binary.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nodegate-firstkey")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "nodegate")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// proc is a `nodegate serve` process whose stdout is collected.
type proc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	err  error
}

func startServe(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary(t), append([]string{"serve"}, args...)...), done: make(chan struct{})}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	p.cmd.Stderr = &stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		p.err = p.cmd.Wait()
		p.mu.Lock()
		p.out.WriteString(stderr.String())
		p.mu.Unlock()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

func (p *proc) stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits for a line matching re in the output, or the exit.
func (p *proc) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		if m := re.FindStringSubmatch(p.stdout()); m != nil {
			return m
		}
		select {
		case <-p.done:
			if m := re.FindStringSubmatch(p.stdout()); m != nil {
				return m
			}
			t.Fatalf("nodegate exited (%v) without printing %s:\n%s", p.err, re, p.stdout())
		case <-deadline:
			t.Fatalf("nodegate did not print %s:\n%s", re, p.stdout())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

var (
	announcedKey = regexp.MustCompile(`created the first API key: ([0-9a-f]{32})  \(id ([0-9a-f]{12})`)
	servingURL   = regexp.MustCompile(`serving (http://[0-9.:]+)/v3/`)
)

// storedKeyIDs lists every key id in the data dir's store.
func storedKeyIDs(t *testing.T, dataDir string) []string {
	t.Helper()
	out, err := exec.Command(binary(t), "keys", "list", "--all", "--json", "--data-dir", dataDir).Output()
	if err != nil {
		t.Fatalf("keys list: %v", err)
	}
	var recs []struct{ ID string }
	if err := json.Unmarshal(out, &recs); err != nil {
		t.Fatalf("keys list output %q: %v", out, err)
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.ID
	}
	return ids
}

// checkNoLostKey fails when the store holds a key the output never showed.
func checkNoLostKey(t *testing.T, dataDir, output string) {
	t.Helper()
	for _, id := range storedKeyIDs(t, dataDir) {
		if !strings.Contains(output, "(id "+id) {
			t.Fatalf("key %s is stored but was never printed:\n%s", id, output)
		}
	}
}

// TestFirstKeyBusyPort: a first start that fails on a busy port loses no
// key, and the next start prints a key that works.
func TestFirstKeyBusyPort(t *testing.T) {
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	first := startServe(t, "--listen", busy.Addr().String(), "--data-dir", dir)
	select {
	case <-first.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("a start on a busy port did not exit")
	}
	if first.err == nil || !strings.Contains(first.stdout(), "address already in use") {
		t.Fatalf("start on a busy port: %v\n%s", first.err, first.stdout())
	}
	checkNoLostKey(t, dir, first.stdout())

	second := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
	base := second.waitFor(t, servingURL)[1]
	key := second.waitFor(t, announcedKey)[1]
	checkNoLostKey(t, dir, first.stdout()+second.stdout())
	resp, err := http.Post(base+"/v3/"+key, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the printed key answers HTTP %d", resp.StatusCode)
	}
	_ = second.cmd.Process.Signal(syscall.SIGINT)
}

// TestFirstKeyKilledEarly: a first start killed at any moment has either
// printed the key it stored, or stored none (and the next start makes one).
func TestFirstKeyKilledEarly(t *testing.T) {
	for _, after := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond} {
		t.Run(after.String(), func(t *testing.T) {
			dir := t.TempDir()
			p := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
			time.Sleep(after)
			_ = p.cmd.Process.Kill()
			<-p.done
			checkNoLostKey(t, dir, p.stdout())
			t.Logf("killed after %s: %d key(s) stored, announced: %v", after, len(storedKeyIDs(t, dir)), announcedKey.MatchString(p.stdout()))
		})
	}
	t.Run("right after the announcement", func(t *testing.T) {
		dir := t.TempDir()
		p := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
		p.waitFor(t, announcedKey)
		_ = p.cmd.Process.Kill()
		<-p.done
		checkNoLostKey(t, dir, p.stdout())
		next := startServe(t, "--listen", "127.0.0.1:0", "--data-dir", dir)
		next.waitFor(t, servingURL)
		checkNoLostKey(t, dir, p.stdout()+next.stdout())
		_ = next.cmd.Process.Signal(syscall.SIGINT)
	})
}
