package service_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
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
		testenv.Program(t, "the starknet.js check (Node.js 18+ with npm)", tool)
	}
	testenv.NPMCI(t, starknetJSDir, `"node_modules/starknet": {`+"\n"+`      "version": "7.6.4"`)
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
