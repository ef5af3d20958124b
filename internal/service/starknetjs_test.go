package service_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

const starknetJSDir = "testdata/starknetjs"

// TestStarknetJS runs starknet.js 7 (installed by `npm ci` from the
// committed package-lock.json) against the embedded default's Starknet
// devnet on its own listener, through nodegate, with nothing but a nodeUrl
// (testdata/starknetjs/check.mjs): RpcProvider.create, Account.execute with
// the library's defaults (an INVOKE v3), the node's hash checked against
// the account's signature and starknet.js's own hash, the transaction read
// back through rollup_pendingTransactions before its block,
// waitForTransaction, and the transaction in its block after. Without
// node/npm it fails under CI and is skipped elsewhere.
func TestStarknetJS(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages; not in -short") // testing.Short(): CI never passes -short
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is required for the starknet.js check (install Node.js 18+ with npm): %v", tool, err)
			}
			t.Skipf("%s not installed", tool) // outside CI only: under CI this fails just above
		}
	}
	npmCIIn(t, starknetJSDir, `"node_modules/starknet": {`+"\n"+`      "version": "7.6.4"`)
	s := start(t, func(c *config.Config) {
		// The embedded default's networks, with one change: the devnet keeps
		// a transaction pending 5 s rather than 1 s, so that the check reads
		// it in rollup_pendingTransactions before its block on a busy
		// machine too. waitForTransaction polls every 5 s either way.
		c.Networks = c.EffectiveNetworks()
		c.Networks[1].Starknet.Devnet.BlockTime = 5 * time.Second
	})
	base := s.NetworkURL("starknet")
	if base == "" {
		t.Fatal("the starknet network has no listener of its own")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "check.mjs", base+"/v3/"+s.GeneratedKey)
	cmd.Dir = starknetJSDir
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node check.mjs: %v", err)
	}
}
