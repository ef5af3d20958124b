package methods

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/jsonrpc"
)

// arg is one positional parameter: how to decode it and whether it may be absent.
type arg struct {
	optional bool
	// fill is the value an absent or null optional arg is sent as (nil:
	// left absent for the node): Rule.WithDefaults.
	fill json.RawMessage
	// decode checks the raw value; it returns the decoded value or an error
	// worded as go-ethereum words it.
	decode func(raw []byte) (any, error)
}

// parseArgs checks a params array positionally, as go-ethereum's rpc
// package does, with the same wording in its errors. It returns the decoded
// values (nil for absent optional ones).
func parseArgs(params []byte, args []arg) ([]any, *jsonrpc.Error) {
	out := make([]any, 0, len(args))
	var argErr *jsonrpc.Error
	err := jsonrpc.Elements(params, func(elem []byte) bool {
		i := len(out)
		if i >= len(args) {
			argErr = jsonrpc.ErrInvalidParams(fmt.Sprintf("too many arguments, want at most %d", len(args)))
			return false
		}
		if string(elem) == "null" {
			// go-ethereum reads null as an absent value: fine for an
			// optional arg, "missing" for a required one.
			if !args[i].optional {
				argErr = jsonrpc.ErrInvalidParams(fmt.Sprintf("missing value for required argument %d", i))
				return false
			}
			out = append(out, nil)
			return true
		}
		v, err := args[i].decode(elem)
		if err != nil {
			v, err = deferKeyError(i, v, err)
		}
		if err != nil {
			argErr = argError(i, err)
			return false
		}
		out = append(out, v)
		return true
	})
	if err != nil {
		return nil, jsonrpc.ErrInvalidParams("non-array args")
	}
	if argErr != nil {
		return nil, argErr
	}
	for i := len(out); i < len(args); i++ {
		if !args[i].optional {
			return nil, jsonrpc.ErrInvalidParams(fmt.Sprintf("missing value for required argument %d", i))
		}
		out = append(out, nil)
	}
	return out, nil
}

// deferKeyError turns a key's error (keyError) into a Deferred value: the
// node checks such values in the method, after every arg decoded and the
// block resolved, so an arg error further on, and the node's block error,
// win over this one. Other errors are returned as they are. (Its own
// function: errors.As's target escapes, and declared in parseArgs it was
// an allocation for every arg decoded.)
func deferKeyError(i int, v any, err error) (any, error) {
	var ke *keyError
	if errors.As(err, &ke) {
		return &Deferred{Index: i, Placeholder: ke.placeholder, Err: jsonrpc.ErrInvalidParams(ke.msg)}, nil
	}
	return v, err
}

// argError words a decoding failure as go-ethereum does.
func argError(i int, err error) *jsonrpc.Error {
	var ke *keyError
	if errors.As(err, &ke) {
		return jsonrpc.ErrInvalidParams(ke.msg)
	}
	return jsonrpc.ErrInvalidParams(fmt.Sprintf("invalid argument %d: %v", i, err))
}

// decodeInto returns a decoder for values of type T, using T's own JSON
// decoding (go-ethereum's types carry their validation there).
func decodeInto[T any]() func(raw []byte) (any, error) {
	return func(raw []byte) (any, error) {
		v := new(T)
		if h, ok := any(v).(*common.Hash); ok && decodeHashFast(h, raw) {
			return v, nil
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// decodeHashFast decodes the common spelling of a hash, "0x" and 64 hex
// digits, without encoding/json (a hash is the argument of the most
// frequent calls); it reports false for anything else, which is left to
// common.Hash's own decoding and its wording of errors.
func decodeHashFast(h *common.Hash, raw []byte) bool {
	const n = 1 + 2 + 2*common.HashLength + 1
	if len(raw) != n || raw[0] != '"' || raw[n-1] != '"' || raw[1] != '0' || (raw[2] != 'x' && raw[2] != 'X') {
		return false
	}
	_, err := hex.Decode(h[:], raw[3:n-1])
	return err == nil
}

// required and optional build args of type T.
func required[T any]() arg { return arg{decode: decodeInto[T]()} }
func optional[T any]() arg { return arg{optional: true, decode: decodeInto[T]()} }

// optionalOr builds an optional arg of type T that nodegate sends as fill
// when the client leaves it absent or null.
func optionalOr[T any](fill json.RawMessage) arg {
	return arg{optional: true, fill: fill, decode: decodeInto[T]()}
}
