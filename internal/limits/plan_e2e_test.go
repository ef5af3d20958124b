package limits_test

import (
	"fmt"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestPlanOwnMethodLimits: a plan's own method limits, set on the plan
// (plans.<name>.get_logs_max_results), bound its keys' calls: the generated
// key is on team, whose plan here allows 5000 logs, under the network's
// 10000. The key carries them with its plan, as the key store keeps it.
func TestPlanOwnMethodLimits(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, func(cfg *config.Config) {
		if err := config.Decode([]byte("plans:\n  team:\n    get_logs_max_results: 5000\n"), cfg); err != nil {
			t.Fatal(err)
		}
	})
	e := call(t, gw, "eth_getLogs", fmt.Sprintf(`[{"blockHash":"%s"}]`, blockHash(t, c, c.blockA))).err(t)
	if e.Code != -32005 || e.Message != "query returned more than 5000 results" || string(e.Data) != `{"limit":5000}` {
		t.Fatalf("got %d %q %s", e.Code, e.Message, e.Data)
	}
}
