package service_test

import (
	"context"
	"os"
	"os/exec"
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
				cmd.Env = append(cmd.Env, "NODE_EXTRA_CA_CERTS="+s.LocalCA.Path)
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
	testenv.NPMCI(t, jsDir, `"node_modules/ethers": {`+"\n"+`      "version": "6.17.0"`, `"node_modules/viem": {`+"\n"+`      "version": "2.57.20"`)
}
