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
	buf = appendQuoted(buf, method)
	buf = append(buf, `,"params":`...)
	buf = append(buf, params...)
	return append(buf, '}')
}

// appendQuoted appends s as a JSON string as strconv.AppendQuote writes
// it; a name of printable ASCII without quote or backslash (every method
// name in practice) is copied between quotes without strconv's rune by
// rune escaping.
func appendQuoted(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return strconv.AppendQuote(buf, s)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

// ErrNotResponse reports bytes from an upstream that are not a JSON-RPC response.
var ErrNotResponse = errors.New("not a json-rpc response")

// DecodeResponse reads one response object from an upstream. Result and
// error stay raw bytes (slices of b): nothing inside them is decoded. The
// id is checked strictly (validResponseID): an answer whose id is not
// valid JSON (`00`, `1.`, `nul`) is not a response.
func DecodeResponse(b []byte) (id json.RawMessage, r Response, err error) {
	var f responseFields
	if objectFields(b, f.field) != nil {
		return nil, Response{}, ErrNotResponse
	}
	return f.response()
}

// Responses reads an upstream's answer to a batch, a JSON array of
// responses, in one pass: fn is given each element as DecodeResponse reads
// it (err ErrNotResponse for an element that is not a response), in order,
// until it returns false. An answer that is not a well-formed array stops
// the reading where it is broken and returns ErrNotResponse, as Elements
// does.
func Responses(b []byte, fn func(id json.RawMessage, r Response, err error) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrNotResponse
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return notResponse(trailing(b, i+1))
	}
	for {
		vs := skipSpace(b, i)
		var (
			f   responseFields
			ve  int
			err error
		)
		if vs < len(b) && b[vs] == '{' {
			ve, err = objectFieldsAt(b, vs, f.field) // f.field never stops the scan
		} else {
			ve, err = skipValue(b, vs)
		}
		if err != nil {
			return ErrNotResponse
		}
		var (
			id   json.RawMessage
			r    Response
			derr = ErrNotResponse
		)
		if b[vs] == '{' {
			id, r, derr = f.response()
		}
		if !fn(id, r, derr) {
			return nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return ErrNotResponse
		}
		if b[i] == ']' {
			return notResponse(trailing(b, i+1))
		}
		if b[i] != ',' {
			return ErrNotResponse
		}
		i++
	}
}

// notResponse is ErrNotResponse when err is set.
func notResponse(err error) error {
	if err != nil {
		return ErrNotResponse
	}
	return nil
}

// responseFields is what DecodeResponse reads of a response's members.
type responseFields struct {
	id         json.RawMessage
	r          Response
	haveResult bool
}

func (f *responseFields) field(key, value []byte) bool {
	switch string(key) {
	case "id":
		f.id = value
	case "result":
		f.r.Result, f.haveResult = value, true
	case "error":
		if value[0] == '{' {
			f.r.Err = DecodeError(value)
		}
	}
	return true
}

// response is DecodeResponse's answer from the fields read.
func (f *responseFields) response() (json.RawMessage, Response, error) {
	if f.id != nil && !validResponseID(f.id) {
		return nil, Response{}, ErrNotResponse
	}
	if f.r.Err != nil {
		f.r.Result = nil
		return f.id, f.r, nil
	}
	if !f.haveResult {
		return nil, Response{}, ErrNotResponse
	}
	return f.id, f.r, nil
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
