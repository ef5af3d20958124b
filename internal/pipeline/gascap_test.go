package pipeline

import (
	"testing"

	"github.com/nodegate/nodegate/internal/limits"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestRefusesGas: what a node says when a call's gas is above its cap
// (Hardhat 3's and go-ethereum's words) reads as a refusal; reverts and
// other errors do not.
func TestRefusesGas(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *jsonrpc.Response
		want bool
	}{
		{"hardhat", jsonrpc.ErrorResponse(&jsonrpc.Error{Code: -32000, Message: "transaction gas limit (600000000) is greater than the cap (16777216)"}), true},
		{"go-ethereum", jsonrpc.ErrorResponse(&jsonrpc.Error{Code: -32000, Message: "transaction gas limit too high (cap: 16777216, tx: 600000000)"}), true},
		{"revert", jsonrpc.ErrorResponse(&jsonrpc.Error{Code: 3, Message: "execution reverted: gas limit above cap"}), false},
		{"other error", jsonrpc.ErrorResponse(&jsonrpc.Error{Code: -32000, Message: "header not found"}), false},
		{"out of gas", jsonrpc.ErrorResponse(&jsonrpc.Error{Code: -32000, Message: "out of gas"}), false},
		{"result", &jsonrpc.Response{Result: []byte(`"0x"`)}, false},
		{"no answer", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusesGas(tc.resp); got != tc.want {
				t.Fatalf("refusesGas = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCapParamsFill: a gas the client gave is capped at the plan's cap; an
// absent one is filled (eth_call) with the fill, which may be less.
func TestCapParamsFill(t *testing.T) {
	const limit, fill = 600_000_000, 16_777_216
	for _, tc := range []struct {
		name   string
		kind   methods.Gas
		params string
		gas    uint64 // what the node is sent; 0: none
		filled bool
	}{
		{"call without gas: filled", methods.GasNodeCap, `[{"to":"0x01"},"latest"]`, fill, true},
		{"call with gas above the cap: the cap", methods.GasNodeCap, `[{"to":"0x01","gas":"0xffffffffff"},"latest"]`, limit, false},
		{"call with gas within: kept", methods.GasNodeCap, `[{"to":"0x01","gas":"0x1000001"},"latest"]`, 0x1000001, false},
		{"estimate without gas: left to the node", methods.GasEstimated, `[{"to":"0x01"}]`, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, filled, err := capParams(tc.kind, []byte(tc.params), limit, fill)
			if err != nil {
				t.Fatal(err)
			}
			gas, present := limits.CallGas(out)
			if filled != tc.filled || gas != tc.gas || present != (tc.gas != 0) {
				t.Fatalf("%s: gas %d (present %v, filled %v), want %d (filled %v)", out, gas, present, filled, tc.gas, tc.filled)
			}
		})
	}
}
