package service_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

const starknetJSDir = "testdata/starknetjs"

// TestStarknetJS runs starknet.js 10 (current, Starknet JSON-RPC 0.10 on
// the devnet's default path /v3/<key>) and starknet.js 7 (previous, 0.8 at
// /v3/<key>/rpc/v0_8), each installed by `npm ci` from its committed
// package-lock.json, against the embedded default's Starknet devnet on its
// own listener, through nodegate, with the library's defaults only
// (testdata/starknetjs/flow.mjs): RpcProvider.create and new RpcProvider,
// getChainId, getBlock, a predeployed account from
// devnet_getPredeployedAccounts as the library's default Account (no cairoVersion: it reads the account's class with
// getClassAt), getNonce, execute (an INVOKE v3) whose hash is the signed
// one, the transaction in the block being built and in
// rollup_pendingTransactions, waitForTransaction, getTransactionReceipt and
// the transaction in its block. Each version uses an account of its own.
// Without node/npm it fails under CI and is skipped elsewhere.
func TestStarknetJS(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages; not in -short") // testing.Short(): CI never passes -short
	}
	for _, tool := range []string{"node", "npm"} {
		testenv.Program(t, "the starknet.js check (Node.js 20+ with npm)", tool)
	}
	versions := []struct {
		name, dir, version, path string
	}{
		{name: "starknet.js 10", dir: "v10", version: "10.8.0"},
		{name: "starknet.js 7", dir: "v7", version: "7.6.4", path: "/rpc/v0_8"},
	}
	for _, v := range versions {
		testenv.NPMCI(t, filepath.Join(starknetJSDir, v.dir), `"node_modules/starknet": {`+"\n"+`      "version": "`+v.version+`"`)
	}
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
	for i, v := range versions {
		t.Run(v.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "check.mjs", base+"/v3/"+s.GeneratedKey+v.path, strconv.Itoa(i))
			cmd.Dir = filepath.Join(starknetJSDir, v.dir)
			out, err := cmd.CombinedOutput()
			t.Logf("%s", out)
			if err != nil {
				t.Fatalf("node check.mjs: %v", err)
			}
		})
	}
}
