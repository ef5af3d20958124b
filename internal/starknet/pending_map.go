package starknet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/nodegate/nodegate/jsonrpc"
)

// member is one field of a JSON object, in the order it was sent.
type member struct {
	key string
	val json.RawMessage
}

// objectMembers splits a JSON object into its members, keeping their order
// and raw values.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // object keys are always strings
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, val: val})
	}
	return out, nil
}

func find(ms []member, key string) json.RawMessage {
	for _, m := range ms {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// pendingFields are docs/spec.md's pending transaction object, in its order.
var pendingFields = []string{"type", "transaction_hash", "max_fee", "version", "signature", "nonce", "contract_address", "entry_point_selector", "calldata"}

// mapPendingTx rewrites one Starknet transaction (any version of the JSON-RPC
// spec) as docs/spec.md's pending transaction object: its fields first, in the
// spec's order, then every other field of the original unchanged, so nothing
// a Starknet client knows is lost. Values are copied as the node sent them,
// after checking that each felt is a felt. Derived fields:
//   - contract_address from sender_address (INVOKE v1/v3, DECLARE);
//   - entry_point_selector __execute__ for INVOKE v1/v3, whose account entry
//     point is implied;
//   - nonce 0x0 for INVOKE v0, which has none;
//   - max_fee for v3 (resource bounds instead of a fee): the sum over the
//     resources of max_amount × max_price_per_unit, the most the sender
//     can be charged before the tip.
//
// A field with no source in the original (signature of an L1_HANDLER,
// calldata of a DECLARE) is left out rather than invented.
func mapPendingTx(buf []byte, raw []byte) ([]byte, error) {
	ms, err := objectMembers(raw)
	if err != nil {
		return buf, fmt.Errorf("transaction: %w", err)
	}
	typ := find(ms, "type")
	var typeName string
	if err := json.Unmarshal(typ, &typeName); err != nil || typeName == "" {
		return buf, fmt.Errorf("type: must be a string")
	}
	invoke := typeName == "INVOKE" || typeName == "INVOKE_FUNCTION"
	version := find(ms, "version")
	out := map[string]json.RawMessage{"type": typ}
	for _, f := range []string{"transaction_hash", "version"} {
		v := find(ms, f)
		if err := checkFelt(v); err != nil {
			return buf, fmt.Errorf("%s: %w", f, err)
		}
		out[f] = v
	}
	if v := find(ms, "max_fee"); v != nil {
		out["max_fee"] = v
	} else if rb := find(ms, "resource_bounds"); rb != nil {
		fee, err := maxFeeFromBounds(rb)
		if err != nil {
			return buf, fmt.Errorf("resource_bounds: %w", err)
		}
		out["max_fee"] = fee
	}
	copyIf(ms, out, "signature", "nonce", "entry_point_selector", "calldata")
	if v := find(ms, "contract_address"); v != nil {
		out["contract_address"] = v
	} else if v := find(ms, "sender_address"); v != nil {
		out["contract_address"] = v
	}
	if invoke && out["nonce"] == nil && string(version) == `"0x0"` {
		out["nonce"] = json.RawMessage(`"0x0"`)
	}
	if invoke && out["entry_point_selector"] == nil {
		out["entry_point_selector"] = executeSelector.AppendQuoted(nil)
	}
	if err := checkPendingFelts(out); err != nil {
		return buf, err
	}
	return writePendingTx(buf, out, ms), nil
}

// checkPendingFelts checks the mapped fields that are felts, or lists of
// felts, to be so.
func checkPendingFelts(out map[string]json.RawMessage) error {
	for _, f := range []string{"max_fee", "nonce", "contract_address", "entry_point_selector"} {
		if v := out[f]; v != nil {
			if err := checkFelt(v); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	for _, f := range []string{"signature", "calldata"} {
		if v := out[f]; v != nil {
			if err := checkFelts(v); err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
		}
	}
	return nil
}

// writePendingTx appends the mapped transaction to buf: the spec's fields
// (out) in its order, then the original's other members (ms) as they were.
func writePendingTx(buf []byte, out map[string]json.RawMessage, ms []member) []byte {
	buf = append(buf, '{')
	first := true
	field := func(k string, v json.RawMessage) {
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, '"')
		buf = append(buf, k...)
		buf = append(buf, `":`...)
		buf = append(buf, v...)
	}
	for _, f := range pendingFields {
		if v := out[f]; v != nil {
			field(f, v)
		}
	}
	for _, m := range ms {
		if isPendingField(m.key) {
			continue // already written above, in the spec's order
		}
		k, _ := json.Marshal(m.key) // re-quote: the key came decoded from the decoder
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = append(buf, k...)
		buf = append(buf, ':')
		buf = append(buf, m.val...)
	}
	return append(buf, '}')
}

func isPendingField(k string) bool {
	for _, f := range pendingFields {
		if f == k {
			return true
		}
	}
	return false
}

func copyIf(ms []member, out map[string]json.RawMessage, keys ...string) {
	for _, k := range keys {
		if v := find(ms, k); v != nil {
			out[k] = v
		}
	}
}

func checkFelt(raw json.RawMessage) error {
	if raw == nil {
		return errMissing
	}
	var f Felt
	return f.UnmarshalJSON(raw)
}

func checkFelts(raw json.RawMessage) error {
	if len(raw) == 0 || raw[0] != '[' {
		return fmt.Errorf("%w, got %s", errNotArray, JSONKind(raw))
	}
	var firstErr error
	i := 0
	err := jsonrpc.Elements(raw, func(elem []byte) bool {
		if err := checkFelt(elem); err != nil {
			firstErr = fmt.Errorf("[%d]: %w", i, err)
			return false
		}
		i++
		return true
	})
	if err != nil {
		return errNotArray
	}
	return firstErr
}

// maxFeeFromBounds sums max_amount × max_price_per_unit over the resources
// of a v3 transaction's resource_bounds.
func maxFeeFromBounds(raw json.RawMessage) (json.RawMessage, error) {
	var bounds map[string]struct {
		MaxAmount string `json:"max_amount"`
		MaxPrice  string `json:"max_price_per_unit"`
	}
	if err := json.Unmarshal(raw, &bounds); err != nil {
		return nil, fmt.Errorf("must be an object of resources: %w", err)
	}
	sum := new(big.Int)
	for name, b := range bounds {
		amount, err := ParseFelt(b.MaxAmount)
		if err != nil {
			return nil, fmt.Errorf("%s.max_amount: %w", name, err)
		}
		price, err := ParseFelt(b.MaxPrice)
		if err != nil {
			return nil, fmt.Errorf("%s.max_price_per_unit: %w", name, err)
		}
		sum.Add(sum, new(big.Int).Mul(amount.Big(), price.Big()))
	}
	return json.RawMessage(`"0x` + sum.Text(16) + `"`), nil
}
