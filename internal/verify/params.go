package verify

import (
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// ref is what a param names: a block or transaction hash, a block
// number, the pending block, or nothing checkable (a tag such as
// "latest", a missing or malformed param).
type ref struct {
	hash    common.Hash
	number  uint64
	byHash  bool
	byNum   bool
	pending bool
}

// refOf reads a param naming a block or a transaction: a 32-byte hash, a
// quantity, a tag ("earliest" is block 0) or an EIP-1898 object.
func refOf(v []byte) ref {
	if len(v) == 0 {
		return ref{}
	}
	if v[0] == '{' {
		var r ref
		_ = jsonrpc.Fields(v, func(key, value []byte) bool {
			switch string(key) {
			case "blockHash", "blockNumber":
				r = refOf(value)
				return false
			}
			return true
		})
		return r
	}
	s, ok := rawString(v)
	if !ok {
		var str string
		if json.Unmarshal(v, &str) != nil {
			return ref{}
		}
		s = []byte(str)
	}
	switch string(s) {
	case "pending":
		return ref{pending: true}
	case "earliest":
		return ref{byNum: true}
	}
	if len(s) == 2+2*common.HashLength {
		// hexutil.Decode's rules: a 0x or 0X prefix, then hex digits.
		var h common.Hash
		if s[0] != '0' || s[1] != 'x' && s[1] != 'X' {
			return ref{}
		}
		if _, err := hex.Decode(h[:], s[2:]); err != nil {
			return ref{}
		}
		return ref{hash: h, byHash: true}
	}
	n, err := hexutil.DecodeUint64(string(s))
	if err != nil {
		return ref{}
	}
	return ref{number: n, byNum: true}
}

// rawString is the content of v, a JSON string, when it holds no escape
// (every hash, quantity and tag a client sends): then its bytes are what
// encoding/json would decode, without decoding. ok is false for anything
// else, left to encoding/json.
func rawString(v []byte) (s []byte, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s = v[1 : len(v)-1]
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return nil, false
		}
	}
	return s, true
}

// param is the i-th positional param's ref.
func param(params json.RawMessage, i int) ref {
	return refOf(jsonrpc.Element(params, i))
}

// index reads the i-th param as a quantity (a transaction's index).
func index(params json.RawMessage, i int) (uint64, bool) {
	var q hexutil.Uint64
	v := jsonrpc.Element(params, i)
	if len(v) == 0 || json.Unmarshal(v, &q) != nil {
		return 0, false
	}
	return uint64(q), true
}

// fullTxs reads eth_getBlockBy*'s second param: whether the block's
// transactions are asked in full.
func fullTxs(params json.RawMessage) bool {
	return string(jsonrpc.Element(params, 1)) == "true"
}
