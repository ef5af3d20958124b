package limits

import (
	"encoding/json"
	"testing"
)

// FuzzCapSimulateGas: eth_simulateV1's params are capped without a panic;
// a rewrite is valid JSON and leaves nothing over the cap (capping it
// again changes nothing); CallGas never panics.
func FuzzCapSimulateGas(f *testing.F) {
	f.Add(`[{"blockStateCalls":[{"blockOverrides":{"gasLimit":"0x5f5e100"},"calls":[{"gas":"0xffffffff"}]}]},"latest"]`)
	f.Add(`[{"BLOCKSTATECALLS":[{"BlockOverrides":{"GASLIMIT":"0x5f5e100","gasLimit":"0x1"},"Calls":[{"GAS":"0xffffffff","gas":"0x1"}]}]}]`)
	f.Add(`[{"blockStateCalls":[{"calls":[{"gas":5}]},null,7]},"latest"]`)
	f.Add(`[{"gas":"0xffffff"}]`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, params string) {
		_, _ = CallGas(json.RawMessage(params))
		if !json.Valid([]byte(params)) {
			return // the ingress passes only valid JSON
		}
		out, changed, err := CapSimulateGas(json.RawMessage(params), 1000)
		if err != nil || !changed {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("rewrite is not JSON: %s", out)
		}
		if _, again, err := CapSimulateGas(out, 1000); err != nil || again {
			t.Fatalf("rewrite %s still over the cap (%v)", out, err)
		}
	})
}

// FuzzCapBlockOverrideGas: block overrides are capped without a panic; a
// rewrite is valid JSON, keeps the other params and leaves nothing over.
func FuzzCapBlockOverrideGas(f *testing.F) {
	f.Add(`[{"to":"0x01"},"latest",null,{"gasLimit":"0x5f5e100"}]`)
	f.Add(`[{},"latest",{},{"GASLIMIT":"0xffffffffff","gasLimit":"0x1"}]`)
	f.Add(`[{},"latest",null,7]`)
	f.Add(`[{}]`)
	f.Fuzz(func(t *testing.T, params string) {
		if !json.Valid([]byte(params)) {
			return
		}
		out, changed, err := CapBlockOverrideGas(json.RawMessage(params), 3, 1000)
		if err != nil || !changed {
			return
		}
		var before, after []json.RawMessage
		if json.Unmarshal([]byte(params), &before) != nil || json.Unmarshal(out, &after) != nil || len(before) != len(after) {
			t.Fatalf("rewrite %s of %s", out, params)
		}
		if _, again, _ := CapBlockOverrideGas(out, 3, 1000); again {
			t.Fatalf("rewrite %s still over the cap", out)
		}
	})
}
