package starknet

import (
	"encoding/json"
	"fmt"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Starknet JSON-RPC error codes that nodes and the devnet answer with.
const (
	CodeBlockNotFound   = 24
	CodeTxHashNotFound  = 29
	CodeDuplicateTx     = 59
	CodeUnexpectedError = 63
)

// AppendQuoted appends f as a quoted hex JSON string.
func (f Felt) AppendQuoted(buf []byte) []byte {
	buf = append(buf, '"')
	buf = f.AppendHex(buf)
	return append(buf, '"')
}

// AppendJSON writes the transaction as Starknet JSON-RPC lists it in
// starknet_pendingTransactions and blocks: the TXN fields plus
// transaction_hash, every felt in canonical form. A v0 shows nonce 0x0, as
// the nodes of 0.4 do.
func (tx *Invoke) AppendJSON(buf []byte, hash Felt) []byte {
	buf = append(buf, `{"type":"INVOKE","transaction_hash":`...)
	buf = hash.AppendQuoted(buf)
	if tx.Version < 3 {
		buf = append(buf, `,"max_fee":`...)
		buf = tx.MaxFee.AppendQuoted(buf)
	}
	buf = append(buf, `,"version":`...)
	buf = tx.versionFelt().AppendQuoted(buf)
	buf = append(buf, `,"signature":`...)
	buf = AppendFelts(buf, tx.Signature)
	buf = append(buf, `,"nonce":`...)
	buf = tx.Nonce.AppendQuoted(buf)
	if tx.Version == 0 {
		buf = append(buf, `,"contract_address":`...)
		buf = tx.ContractAddress.AppendQuoted(buf)
		buf = append(buf, `,"entry_point_selector":`...)
		buf = tx.EntryPointSelector.AppendQuoted(buf)
	} else {
		buf = append(buf, `,"sender_address":`...)
		buf = tx.SenderAddress.AppendQuoted(buf)
	}
	buf = append(buf, `,"calldata":`...)
	buf = AppendFelts(buf, tx.Calldata)
	if tx.Version == 3 {
		buf = tx.V3.appendJSON(buf)
	}
	return append(buf, '}')
}

// AppendFelts appends fs as a JSON array of quoted felts.
func AppendFelts(buf []byte, fs []Felt) []byte {
	buf = append(buf, '[')
	for i, f := range fs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = f.AppendQuoted(buf)
	}
	return append(buf, ']')
}

// BindParams reads params given by position or by name into the order of
// names; the first `required` names must be present.
func BindParams(raw json.RawMessage, names []string, required int) ([]json.RawMessage, *jsonrpc.Error) {
	out := make([]json.RawMessage, len(names))
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '[':
		i := 0
		var tooMany bool
		_ = jsonrpc.Elements(raw, func(elem []byte) bool {
			if i >= len(names) {
				tooMany = true
				return false
			}
			out[i] = elem
			i++
			return true
		})
		if tooMany {
			return nil, jsonrpc.ErrInvalidParams(fmt.Sprintf("too many arguments, want at most %d", len(names)))
		}
	default:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, jsonrpc.ErrInvalidParams("params must be an array or an object")
		}
		for k, v := range obj {
			i := indexOf(names, k)
			if i < 0 {
				return nil, jsonrpc.ErrInvalidParams(fmt.Sprintf("unknown parameter %q", Clip(k)))
			}
			out[i] = v
		}
	}
	for i := 0; i < required; i++ {
		if out[i] == nil {
			return nil, jsonrpc.ErrInvalidParams(fmt.Sprintf("missing value for required argument %d (%s)", i, names[i]))
		}
	}
	return out, nil
}

func indexOf(names []string, s string) int {
	for i, n := range names {
		if n == s {
			return i
		}
	}
	return -1
}
