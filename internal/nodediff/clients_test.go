package nodediff

import (
	"context"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
)

const clientsDir = "testdata/clients"

// TestClientsBehindHardhat runs the same reads with ethers, viem and web3.js
// (testdata/clients, pinned by its package-lock.json) against Hardhat 3
// directly and through nodegate in front of it, over HTTP and WebSocket:
// every outcome (a result, or an error's class, code and revert data) must
// be the same. It holds issue 30's client failures behind Hardhat: calls
// without gas that nodegate sent with more gas than Hardhat accepts, which
// failed through nodegate (ethers "missing revert data", viem "Missing or
// invalid parameters") where Hardhat answered.
func TestClientsBehindHardhat(t *testing.T) {
	nodejs := installNodes(t)
	testenv.NPMCIUnder(t, nodejs, clientsDir,
		`"node_modules/ethers": {`+"\n"+`      "version": "6.17.0"`,
		`"node_modules/viem": {`+"\n"+`      "version": "2.57.20"`,
		`"node_modules/web3": {`+"\n"+`      "version": "4.16.0"`)
	n := startHardhat(t, nodejs)
	ch := seed(t, n)
	gw := startGateway(t, n)
	run := func(t *testing.T, url string) map[string]map[string]json.RawMessage {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, nodejs, "check.mjs", url, ch.contract.Hex(), ch.from.Hex(), ch.call.TxHash.Hex())
		cmd.Dir = clientsDir
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("node check.mjs %s: %v\n%s%s", url, err, out, stderr)
		}
		var outcomes map[string]map[string]json.RawMessage
		if err := json.Unmarshal(out, &outcomes); err != nil {
			t.Fatalf("check.mjs printed %s: %v", out, err)
		}
		return outcomes
	}
	for _, tc := range []struct{ name, node, gateway string }{
		{"http", n.http, gw.http},
		{"ws", n.ws, gw.ws},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got := run(t, tc.node), run(t, tc.gateway)
			for _, client := range []string{"ethers", "viem", "web3"} {
				if len(want[client]) == 0 {
					t.Fatalf("%s: no outcomes from the node", client)
				}
				for check, w := range want[client] {
					if g := got[client][check]; !jsonEqual(g, w) {
						t.Errorf("%s %s: through nodegate %s, Hardhat directly %s", client, check, g, w)
					}
				}
			}
			if !t.Failed() {
				b, _ := json.Marshal(want)
				t.Logf("outcomes (the same both ways): %s", b)
			}
		})
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
