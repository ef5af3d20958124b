package service_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

const jsDir = "testdata/jsclients"

// TestJavaScriptClients runs ethers v6 and viem (installed by `npm ci`
// from the committed package-lock.json) against nodegate over ws:// and
// wss:// (self-signed, trusted through NODE_EXTRA_CA_CERTS): reads, a
// batch, and a newHeads subscription. Without node/npm it fails under CI
// and is skipped elsewhere.
func TestJavaScriptClients(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages; not in -short") // testing.Short(): CI never passes -short
	}
	for _, tool := range []string{"node", "npm"} {
		testenv.Program(t, "the ethers/viem checks (Node.js 18+ with npm)", tool)
	}
	npmCI(t)
	for _, tc := range []struct {
		name string
		tls  bool
	}{{"ws", false}, {"wss self-signed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) { c.TLS.SelfSigned = tc.tls })
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			// Blocks keep coming while the clients wait for one.
			go func() {
				for ctx.Err() == nil {
					_ = s.Node.Commit()
					time.Sleep(300 * time.Millisecond)
				}
			}()
			cmd := exec.CommandContext(ctx, "node", "check.mjs", wsEndpoint(s), s.Node.Accounts()[0].Address.Hex())
			cmd.Dir = jsDir
			cmd.Env = os.Environ()
			if tc.tls {
				cmd.Env = append(cmd.Env, "NODE_EXTRA_CA_CERTS="+s.SelfSignedPath)
			}
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("node check.mjs: %v", err)
			}
		})
	}
}

// npmCI installs the ethers/viem checks' locked packages.
func npmCI(t *testing.T) {
	npmCIIn(t, jsDir, `"node_modules/ethers": {`+"\n"+`      "version": "6.17.0"`, `"node_modules/viem": {`+"\n"+`      "version": "2.57.20"`)
}

// npmCIIn runs `npm ci` in dir unless node_modules already matches the
// lock file: npm writes its own copy of the lock there, and both must name
// every pin (the locked versions of the packages the check imports).
func npmCIIn(t *testing.T, dir string, pins ...string) {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if installed, err := os.ReadFile(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && len(installed) > 0 && sameDeps(lock, installed, pins) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}

// sameDeps is a cheap check that the installed tree came from this lock.
func sameDeps(lock, installed []byte, pins []string) bool {
	for _, pin := range pins {
		if !contains(lock, pin) || !contains(installed, pin) {
			return false
		}
	}
	return true
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
