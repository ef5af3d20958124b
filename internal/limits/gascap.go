package limits

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

var errNoCallObject = errors.New("params hold no call object")

// CapGas returns params with the call object's gas set to gasCap, as
// go-ethereum's rpc.gascap lowers it. Only that field is re-encoded: the
// call object is read as raw members, every key that go-ethereum would take
// for gas (encoding/json folds case) is dropped, "gas" is set, and the other
// members and params keep their bytes.
func CapGas(params json.RawMessage, gasCap uint64) (json.RawMessage, error) {
	// The raw scanner checks structure, not literals: only valid JSON is
	// rewritten (the ingress has checked it already; this path is rare).
	if !json.Valid(params) {
		return nil, errNoCallObject
	}
	var elems [][]byte
	if err := jsonrpc.Elements(params, func(e []byte) bool { elems = append(elems, e); return true }); err != nil {
		return nil, errors.Join(errNoCallObject, err)
	}
	if len(elems) == 0 {
		return nil, errNoCallObject
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(elems[0], &obj); err != nil || obj == nil {
		return nil, errors.Join(errNoCallObject, err)
	}
	for k := range obj {
		if strings.EqualFold(k, "gas") {
			delete(obj, k)
		}
	}
	obj["gas"] = json.RawMessage(`"` + hexutil.EncodeUint64(gasCap) + `"`)
	var call bytes.Buffer
	enc := json.NewEncoder(&call)
	enc.SetEscapeHTML(false) // keep the client's bytes: no \u003c for <
	if err := enc.Encode(obj); err != nil {
		return nil, err
	}
	size := len(params) + 32
	out := make([]byte, 0, size)
	out = append(out, '[')
	out = append(out, bytes.TrimRight(call.Bytes(), "\n")...)
	for _, e := range elems[1:] {
		out = append(out, ',')
		out = append(out, e...)
	}
	return append(out, ']'), nil
}
