package jsonrpc

import (
	"encoding/json"
	"errors"
	"strconv"
)

// Response is the outcome of one call: a raw result, or an error.
type Response struct {
	Result json.RawMessage
	Err    *Error
}

// ErrorResponse wraps an error as a response.
func ErrorResponse(e *Error) *Response { return &Response{Err: e} }

// AppendResponse appends the response envelope for id to buf.
func AppendResponse(buf []byte, id json.RawMessage, r *Response) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	if r.Err != nil {
		buf = append(buf, `,"error":`...)
		buf = r.Err.AppendJSON(buf)
	} else {
		buf = append(buf, `,"result":`...)
		if len(r.Result) == 0 {
			buf = append(buf, "null"...)
		} else {
			buf = append(buf, r.Result...)
		}
	}
	return append(buf, '}')
}

// AppendResultHead appends the start of a result envelope for id, up to
// and including `"result":`: the result's bytes and a closing '}' follow.
// It lets a large result be written out without being copied.
func AppendResultHead(buf []byte, id json.RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	return append(buf, `,"result":`...)
}

// Size is the bytes an answer counts against a request's answer budget:
// its result's, or its error object's, as go-ethereum counts a batch's
// answers (the envelope and id are not counted).
func (r *Response) Size() int64 {
	if r.Err == nil {
		return int64(len(r.Result))
	}
	if r.Err.Raw != nil {
		return int64(len(r.Err.Raw))
	}
	return int64(len(`{"code":-00000,"message":""}`) + len(r.Err.Message) + len(r.Err.Data))
}

// AppendRequest appends a request envelope with a numeric id to buf.
func AppendRequest(buf []byte, id uint64, method string, params json.RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendUint(buf, id, 10)
	buf = append(buf, `,"method":`...)
	buf = strconv.AppendQuote(buf, method) // method names are ASCII; see validMethodName
	buf = append(buf, `,"params":`...)
	buf = append(buf, params...)
	return append(buf, '}')
}

// ErrNotResponse reports bytes from an upstream that are not a JSON-RPC response.
var ErrNotResponse = errors.New("not a json-rpc response")

// DecodeResponse reads one response object from an upstream. Result and
// error stay raw bytes (slices of b): nothing inside them is decoded. The
// id is checked strictly (validResponseID): an answer whose id is not
// valid JSON (`00`, `1.`, `nul`) is not a response.
func DecodeResponse(b []byte) (id json.RawMessage, r Response, err error) {
	var haveResult bool
	scanErr := objectFields(b, func(key, value []byte) bool {
		switch string(key) {
		case "id":
			id = value
		case "result":
			r.Result, haveResult = value, true
		case "error":
			if value[0] == '{' {
				r.Err = DecodeError(value)
			}
		}
		return true
	})
	if scanErr != nil || id != nil && !validResponseID(id) {
		return nil, Response{}, ErrNotResponse
	}
	if r.Err != nil {
		r.Result = nil
		return id, r, nil
	}
	if !haveResult {
		return nil, Response{}, ErrNotResponse
	}
	return id, r, nil
}

// validResponseID reports whether an upstream answer's id is one an
// answer may carry: null, a string or a number, spelled as JSON spells it
// (not `00`, `1.`, `nul`). The scanner does not check the spelling of
// literals, so the id, which matches answers to calls, is checked here.
// It is validID (what may start an id, and its length) with the spelling
// checked too; plainUint, the ids nodegate sends upstream, needs no scanner.
func validResponseID(id []byte) bool {
	return validID(id) && (plainUint(id) || json.Valid(id))
}

// plainUint reports whether b is a JSON unsigned integer without a
// fraction or exponent: 0, or a digit 1-9 followed by digits.
func plainUint(b []byte) bool {
	if len(b) == 0 || b[0] == '0' && len(b) > 1 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Elements calls fn for each element of a JSON array, with its raw bytes.
func Elements(b []byte, fn func(elem []byte) bool) error {
	if err := arrayElements(b, fn); err != nil {
		return ErrNotResponse
	}
	return nil
}

// IsBatch reports whether b holds a JSON array.
func IsBatch(b []byte) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '['
}

// Fields calls fn for each member of a JSON object, with its raw key and value.
func Fields(b []byte, fn func(key, value []byte) bool) error {
	return objectFields(b, fn)
}
