package service_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestEthersSendsWithNewCoreKey: a new key on the core plan, as the
// default plans are, sends a transaction with ethers v6's
// Wallet.sendTransaction over HTTP (nonce, gas estimate, fee data, chain
// id, send, all at once), ethers' retry of a 429 turned off: the plan's
// burst holds what one sendTransaction costs (docs/ratelimit.md).
func TestEthersSendsWithNewCoreKey(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages; not in -short") // testing.Short(): CI never passes -short
	}
	for _, tool := range []string{"node", "npm"} {
		testenv.Program(t, "the ethers check (Node.js 18+ with npm)", tool)
	}
	npmCI(t)
	s := servicetest.Start(t, servicetest.Config(t))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	created, err := s.KeyManager.Create(ctx, keys.CreateParams{Name: "dapp", Plan: config.PlanCore})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keys.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	from, to := s.Node.Accounts()[0], s.Node.Accounts()[1]
	cmd := exec.CommandContext(ctx, "node", "sendtx.mjs", s.URL()+"/v3/"+created.Key, from.PrivateKeyHex(), to.Address.Hex())
	cmd.Dir = jsDir
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("ethers sendTransaction with a new core key: %v", err)
	}
}
