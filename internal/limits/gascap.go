package limits

import (
	"encoding/json"
	"errors"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

var errNoCallObject = errors.New("params hold no call object")

// CapGas returns params with the call object's gas set to gasCap, as
// go-ethereum's rpc.gascap lowers it. Only the bytes of that one value
// change: the value of the member go-ethereum takes for gas (the last one
// whose key encoding/json matches "gas", case-insensitively and after
// unescaping) is replaced, and every other byte of params is kept, so that
// duplicate members, key spellings and the other params reach the node as
// the client sent them. A call object without a gas member gets one at its
// end.
func CapGas(params json.RawMessage, gasCap uint64) (json.RawMessage, error) {
	// The raw scanner checks structure, not literals: only valid JSON is
	// rewritten (the ingress has checked it already; this path is rare).
	if !json.Valid(params) {
		return nil, errNoCallObject
	}
	obj := jsonrpc.Element(params, 0)
	if len(obj) == 0 || obj[0] != '{' {
		return nil, errNoCallObject
	}
	var gas []byte
	members := 0
	if err := jsonrpc.Fields(obj, func(key, value []byte) bool {
		members++
		if isGasKey(key) {
			gas = value
		}
		return true
	}); err != nil {
		return nil, errors.Join(errNoCallObject, err)
	}
	value := make([]byte, 0, 24)
	value = append(append(append(value, '"'), hexutil.EncodeUint64(gasCap)...), '"')
	// Both slices lie inside params (the scanner hands out sub-slices), so
	// their offsets are what their capacities lack of params'.
	at, end := offsetIn(params, gas), 0
	if gas != nil {
		end = at + len(gas)
	} else {
		at = offsetIn(params, obj) + len(obj) - 1 // the object's closing brace
		end = at
		member := []byte(`"gas":`)
		if members > 0 {
			member = []byte(`,"gas":`)
		}
		value = append(member, value...)
	}
	out := make([]byte, 0, len(params)-(end-at)+len(value))
	out = append(out, params[:at]...)
	out = append(out, value...)
	return append(out, params[end:]...), nil
}

// offsetIn is where sub, a sub-slice of b, starts in b.
func offsetIn(b, sub []byte) int {
	if sub == nil {
		return 0
	}
	return cap(b) - cap(sub)
}

// isGasKey reports whether encoding/json, decoding a call object, stores
// a member with this raw key (quotes stripped, escapes kept) in the gas
// field: the library itself decides, so that case folding and escapes
// are read as go-ethereum reads them.
func isGasKey(rawKey []byte) bool {
	doc := make([]byte, 0, len(rawKey)+6)
	doc = append(append(append(doc, '{', '"'), rawKey...), `":0}`...)
	var probe struct {
		Gas *int `json:"gas"`
	}
	return json.Unmarshal(doc, &probe) == nil && probe.Gas != nil
}
