package limits

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

var errNoSimulateOptions = errors.New("params hold no simulate options")

// CallGas reads the gas of params' call object as go-ethereum reads it (the
// last member whose key encoding/json matches "gas"). present is false when
// there is none; a value go-ethereum would refuse reads as present, 0 (the
// node refuses the call: nothing to cap).
func CallGas(params json.RawMessage) (gas uint64, present bool) {
	obj := jsonrpc.Element(params, 0)
	if len(obj) == 0 || obj[0] != '{' {
		return 0, false
	}
	var raw []byte
	_ = jsonrpc.Fields(obj, func(key, value []byte) bool {
		if isGasKey(key) {
			raw = value
		}
		return true
	})
	if raw == nil {
		return 0, false
	}
	var g hexutil.Uint64
	if g.UnmarshalJSON(raw) != nil {
		return 0, true
	}
	return uint64(g), true
}

// CapSimulateGas returns eth_simulateV1's params with every gas limit a
// client sets in them at most gasCap: each call's gas, and each block
// override's gasLimit (a call without gas runs with what its block has
// left). go-ethereum decodes these objects with encoding/json (keys matched
// without regard to case, the last match wins), so every member that folds
// to one of those names is lowered: whichever the node takes is capped.
// changed is false, and params returned as they are, when nothing is over.
func CapSimulateGas(params json.RawMessage, gasCap uint64) (out json.RawMessage, changed bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	var args []any
	if err := dec.Decode(&args); err != nil || len(args) == 0 {
		return nil, false, errors.Join(errNoSimulateOptions, err)
	}
	opts, ok := args[0].(map[string]any)
	if !ok {
		return params, false, nil // go-ethereum refuses it
	}
	for _, blocks := range folded(opts, "blockStateCalls") {
		list, _ := blocks.([]any)
		for _, b := range list {
			block, _ := b.(map[string]any)
			for _, o := range folded(block, "blockOverrides") {
				if ov, ok := o.(map[string]any); ok {
					changed = capMembers(ov, "gasLimit", gasCap) || changed
				}
			}
			for _, cs := range folded(block, "calls") {
				calls, _ := cs.([]any)
				for _, c := range calls {
					if call, ok := c.(map[string]any); ok {
						changed = capMembers(call, "gas", gasCap) || changed
					}
				}
			}
		}
	}
	if !changed {
		return params, false, nil
	}
	out, err = json.Marshal(args)
	if err != nil {
		return nil, false, errors.Join(errNoSimulateOptions, err)
	}
	return out, true, nil
}

// CapBlockOverrideGas returns params with the gasLimit of the block
// overrides at position at (eth_call's and eth_estimateGas's fourth param)
// at most gasCap, every member that folds to gasLimit lowered (a call
// without gas may run with what its block allows). The other params keep
// their bytes. changed is false, and params returned as they are, when
// nothing is over.
func CapBlockOverrideGas(params json.RawMessage, at int, gasCap uint64) (out json.RawMessage, changed bool, err error) {
	if ov := jsonrpc.Element(params, at); len(ov) == 0 || ov[0] != '{' {
		return params, false, nil // no overrides there: most calls, decoded no further
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(params, &elems); err != nil || len(elems) <= at {
		return params, false, nil // the node refuses the params
	}
	dec := json.NewDecoder(bytes.NewReader(elems[at]))
	dec.UseNumber()
	var ov map[string]any
	if dec.Decode(&ov) != nil || !capMembers(ov, "gasLimit", gasCap) {
		return params, false, nil
	}
	if elems[at], err = json.Marshal(ov); err != nil {
		return nil, false, errors.Join(errNoSimulateOptions, err)
	}
	out, err = json.Marshal(elems)
	if err != nil {
		return nil, false, errors.Join(errNoSimulateOptions, err)
	}
	return out, true, nil
}

// folded are the values of obj's members whose key folds to name.
func folded(obj map[string]any, name string) []any {
	var out []any
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			out = append(out, v)
		}
	}
	return out
}

// capMembers lowers every member of obj whose key folds to name and whose
// value is a quantity above gasCap; it reports whether one was.
func capMembers(obj map[string]any, name string, gasCap uint64) bool {
	changed := false
	for k, v := range obj {
		s, ok := v.(string)
		if !ok || !strings.EqualFold(k, name) {
			continue
		}
		if n, err := hexutil.DecodeUint64(s); err == nil && n > gasCap {
			obj[k] = hexutil.EncodeUint64(gasCap)
			changed = true
		}
	}
	return changed
}
