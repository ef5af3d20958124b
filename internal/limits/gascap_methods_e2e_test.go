package limits_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestGasCapEveryMethod: every method that runs code with a gas a client
// sets is under the plan's cap (factor 1: 8M, the node's own is 10 x 8M),
// not only eth_call and eth_estimateGas: a call that needs 10M runs through
// the node alone and not through nodegate, with the gas far above the cap,
// absent (eth_call: the node would run it with its own cap), or left to a
// simulated block's raised gas limit (eth_simulateV1).
func TestGasCapEveryMethod(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, func(cfg *config.Config) {
		cfg.Limits.Plans = config.PlanLimits{"team": {GasCapFactor: 1}}
	})
	from := fmt.Sprintf(`"0x%040x"`, 0xabc)
	obj := func(need uint64, gas string) string {
		o := fmt.Sprintf(`{"from":%s,"to":"%s","data":"0x%064x"`, from, c.gasAddr.Hex(), need)
		if gas != "" {
			o += `,"gas":` + gas
		}
		return o + "}"
	}
	const huge, hundredM = `"0xffffffffffffffff"`, `"0x5f5e100"`
	simulate := func(need uint64, gas, overrides string) string {
		return `[{"blockStateCalls":[{"blockOverrides":` + overrides + `,"calls":[` + obj(need, gas) + `]}]},"latest"]`
	}
	tests := []struct {
		name, method string
		params       func(need uint64) string
	}{
		{"eth_call, gas far above", "eth_call", func(n uint64) string { return "[" + obj(n, huge) + `,"latest"]` }},
		{"eth_call, no gas", "eth_call", func(n uint64) string { return "[" + obj(n, "") + `,"latest"]` }},
		{"eth_estimateGas, gas far above", "eth_estimateGas", func(n uint64) string { return "[" + obj(n, huge) + `,"latest"]` }},
		{"eth_estimateGas, no gas, block gas limit raised", "eth_estimateGas", func(n uint64) string {
			return "[" + obj(n, "") + `,"latest",null,{"gasLimit":` + hundredM + `}]`
		}},
		{"eth_createAccessList, gas far above", "eth_createAccessList", func(n uint64) string { return "[" + obj(n, `"0x1000000"`) + `,"latest"]` }},
		{"eth_simulateV1, gas above", "eth_simulateV1", func(n uint64) string { return simulate(n, `"0x1000000"`, `{"gasLimit":`+hundredM+`}`) }},
		{"eth_simulateV1, GAS above", "eth_simulateV1", func(n uint64) string {
			return strings.Replace(simulate(n, `"0x1000000"`, `{"GasLimit":`+hundredM+`}`), `"gas"`, `"GAS"`, 1)
		}},
		{"eth_simulateV1, no gas, block gas limit raised", "eth_simulateV1", func(n uint64) string { return simulate(n, "", `{"gasLimit":`+hundredM+`}`) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			direct := call(t, c.url, tc.method, tc.params(10_000_000))
			through := call(t, gw, tc.method, tc.params(10_000_000))
			under := call(t, gw, tc.method, tc.params(5_000_000))
			ran := func(a answer) bool { return a.Error == nil && !strings.Contains(string(a.Result), "out of gas") }
			if !ran(direct) {
				t.Fatalf("the node alone does not run the 10M call, the test shows nothing: %.300s %s", direct.Result, direct.Error)
			}
			if ran(through) {
				t.Fatalf("the 10M call ran through nodegate, over the 8M cap: %.300s", through.Result)
			}
			if !ran(under) {
				t.Fatalf("the 5M call, under the cap, did not run through nodegate: %.300s %s", under.Result, under.Error)
			}
		})
	}
}
