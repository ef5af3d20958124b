package limits_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/config"
)

// gasLeft runs the gas contract with gas (nil: no gas field) and returns
// what gasleft() was; the contract sees the call's gas less its intrinsic
// cost, so equal gas gives equal answers.
func gasLeft(t *testing.T, url string, c *chain, gas *uint64) uint64 {
	t.Helper()
	obj := fmt.Sprintf(`{"from":"0x%040x","to":"%s"`, 0xabc, c.gasAddr.Hex())
	if gas != nil {
		obj += fmt.Sprintf(`,"gas":"0x%x"`, *gas)
	}
	a := call(t, url, "eth_call", "["+obj+`},"latest"]`)
	if a.Error != nil {
		t.Fatalf("eth_call: %s", a.Error)
	}
	var out hexutil.Bytes
	if err := out.UnmarshalJSON(a.Result); err != nil || len(out) != 32 {
		t.Fatalf("eth_call result %s: %v", a.Result, err)
	}
	return common.BytesToHash(out).Big().Uint64()
}

func u64(v uint64) *uint64 { return &v }

// TestGasCapCall: gas at, below and far above the cap, observed from inside
// the EVM. The factor-2 plan shows nodegate lowering the gas itself: its cap
// (2 x 8M) is far under the node's own (10 x 8M).
func TestGasCapCall(t *testing.T) {
	c := testChain(t)
	for _, factor := range []int{10, 2} {
		gw := gateway(t, c.url, func(cfg *config.Config) {
			cfg.Limits.Plans = config.PlanLimits{"team": {GasCapFactor: factor}}
		})
		gasCap := uint64(factor) * c.gasLimit
		tests := []struct {
			name string
			gas  *uint64
			eff  *uint64 // the gas the node must have run with
		}{
			{"below", u64(1_000_000), u64(1_000_000)},
			{"one below the cap", u64(gasCap - 1), u64(gasCap - 1)},
			{"at the cap", u64(gasCap), u64(gasCap)},
			{"one above", u64(gasCap + 1), u64(gasCap)},
			{"far above", u64(math.MaxUint64), u64(gasCap)},
			{"absent: the plan's cap", nil, u64(gasCap)},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("factor %d/%s", factor, tc.name), func(t *testing.T) {
				got, want := gasLeft(t, gw, c, tc.gas), gasLeft(t, c.url, c, tc.eff)
				if got != want {
					t.Fatalf("gasleft() %d through nodegate, %d from the node with the capped gas", got, want)
				}
				if (tc.gas == nil || *tc.gas > gasCap) && factor == 2 {
					if direct := gasLeft(t, c.url, c, tc.gas); direct == got {
						t.Fatalf("the node alone gives the same gas (%d): the test shows nothing", direct)
					}
				}
			})
		}
	}
}

// TestGasCapEstimate: eth_estimateGas searches up to the capped gas only; a
// call needing more than the cap is refused by the node with the cap in its
// message. (Osaka bounds an estimate at 2^24 gas: the cap shown, 1 x 8M,
// is under it.)
func TestGasCapEstimate(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, func(cfg *config.Config) {
		cfg.Limits.Plans = config.PlanLimits{"team": {GasCapFactor: 1}}
	})
	need := func(n uint64) string {
		return fmt.Sprintf(`[{"from":"0x%040x","to":"%s","gas":"0xffffffffffffffff","data":"0x%064x"}]`, 0xabc, c.gasAddr.Hex(), n)
	}
	// Needs 5M: under the 8M cap.
	if a := call(t, gw, "eth_estimateGas", need(5_000_000)); a.Error != nil {
		t.Fatalf("5M under an 8M cap: %s", a.Error)
	}
	// Needs 10M: over nodegate's 8M cap, under the node's own 80M.
	e := call(t, gw, "eth_estimateGas", need(10_000_000)).err(t)
	if !strings.Contains(e.Message, fmt.Sprintf("gas required exceeds allowance (%d)", c.gasLimit)) {
		t.Fatalf("got %d %q", e.Code, e.Message)
	}
	if a := call(t, c.url, "eth_estimateGas", need(10_000_000)); a.Error != nil {
		t.Fatalf("the node alone allows 100M, the test shows nothing: %s", a.Error)
	}
}

// TestGasCapKeepsTheCall: call objects go-ethereum reads in its own way
// (duplicate members in another case, escaped keys: the last member wins)
// are capped without changing which call runs. Through nodegate (cap 2 x
// the gas limit, gas far above it) the answer is the node's own answer to
// the same bytes with the gas at the cap.
func TestGasCapKeepsTheCall(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, func(cfg *config.Config) {
		cfg.Limits.Plans = config.PlanLimits{"team": {GasCapFactor: 2}}
	})
	capped := fmt.Sprintf(`"0x%x"`, 2*c.gasLimit)
	const huge = `"0xffffffffffffffff"`
	from := fmt.Sprintf(`"0x%040x"`, 0xabc)
	gas, emitter := `"`+c.gasAddr.Hex()+`"`, `"`+c.emitter.Hex()+`"`
	tests := []struct{ name, obj string }{
		{"to, then TO", `{"to":` + emitter + `,"from":` + from + `,"gas":GAS,"TO":` + gas + `}`},
		{"To, then to", `{"To":` + emitter + `,"gas":GAS,"to":` + gas + `}`},
		{"gas, then GAS", `{"to":` + gas + `,"gas":"0x5208","GAS":GAS}`},
		{"escaped gas key", `{"g\u0061s":GAS,"to":` + gas + `,"from":` + from + `}`},
		{"data, then DATA", `{"to":` + gas + `,"gas":GAS,"data":"0x` + strings.Repeat("ff", 32) + `","DATA":"0x"}`},
	}
	for _, tc := range tests {
		for _, method := range []string{"eth_call", "eth_estimateGas"} {
			t.Run(method+"/"+tc.name, func(t *testing.T) {
				got := call(t, gw, method, "["+strings.Replace(tc.obj, "GAS", huge, 1)+`,"latest"]`)
				want := call(t, c.url, method, "["+strings.Replace(tc.obj, "GAS", capped, 1)+`,"latest"]`)
				if !bytes.Equal(got.Result, want.Result) || !bytes.Equal(got.Error, want.Error) {
					t.Fatalf("through nodegate %s %s; the node, gas at the cap: %s %s", got.Result, got.Error, want.Result, want.Error)
				}
			})
		}
	}
}
