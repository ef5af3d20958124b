package service

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/rlp"
	"github.com/nodegate/nodegate/internal/testenv"
)

const chainDir = "../../testdata/execution-apis/tests"

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// nodegateBinary builds cmd/nodegate once per test binary.
func nodegateBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nodegate-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "nodegate")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/nodegate").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %w: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// nodeProc is a `nodegate node` process.
type nodeProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	addr  string
	chain string
	keys  chan string // the dev chain's funded accounts' private keys, as printed
}

// startNode starts `nodegate node` on addr ("127.0.0.1:0" picks a port) and
// waits for it to listen.
func startNode(t *testing.T, chain, addr string) *nodeProc {
	t.Helper()
	cmd := exec.Command(nodegateBinary(t), "node", "--listen", addr, "--chain", chain)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &nodeProc{t: t, cmd: cmd, chain: chain, keys: make(chan string, 64)}
	t.Cleanup(p.kill)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			switch line := sc.Text(); {
			case strings.HasPrefix(line, "node listening on http://"):
				lines <- line
			case strings.Contains(line, "private key 0x"):
				select {
				case p.keys <- line[strings.Index(line, "private key 0x")+len("private key "):]:
				default:
				}
			}
		}
	}()
	select {
	case line := <-lines:
		p.addr = strings.Fields(strings.TrimPrefix(line, "node listening on http://"))[0]
	case <-time.After(60 * time.Second):
		t.Fatal("nodegate node did not start within 60s")
	}
	return p
}

func (p *nodeProc) url() string { return "http://" + p.addr }

// wsURL is the node's WebSocket address (the same listener).
func (p *nodeProc) wsURL() string { return "ws://" + p.addr }

// devKey is the private key of the dev chain's first funded account.
func (p *nodeProc) devKey() string {
	select {
	case k := <-p.keys:
		return k
	case <-time.After(10 * time.Second):
		p.t.Fatal("the node printed no dev account")
		return ""
	}
}

// kill sends SIGKILL and reaps the process.
func (p *nodeProc) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

func (p *nodeProc) signal(sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// restart starts a new process on the same address.
func (p *nodeProc) restart() *nodeProc {
	p.kill()
	var np *nodeProc
	testenv.WaitFor(p.t, 10*time.Second, "the node restarted on "+p.addr, func() bool {
		np = tryStart(p.t, p.chain, p.addr)
		return np != nil
	})
	return np
}

func tryStart(t *testing.T, chain, addr string) (np *nodeProc) {
	defer func() {
		if recover() != nil {
			np = nil
		}
	}()
	return startNode(t, chain, addr)
}

// truncatedChain writes a copy of the conformance chain with only its
// first n blocks, for a node that lags behind.
func truncatedChain(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	genesis, err := os.ReadFile(filepath.Join(chainDir, "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "genesis.json"), genesis, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(chainDir, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	s := rlp.NewStream(bytes.NewReader(raw), 0)
	var out bytes.Buffer
	for i := 0; i < n; i++ {
		item, err := s.Raw()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out.Write(item)
	}
	if err := os.WriteFile(filepath.Join(dir, "chain.rlp"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
