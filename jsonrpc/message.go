package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Limits a parser applies to what a client controls.
const (
	// MaxIDLength bounds a request id; longer ids are refused, not echoed.
	MaxIDLength = 256
	// MaxMethodLength matches go-ethereum's limit on method names.
	MaxMethodLength = 2048
)

// Request is one JSON-RPC call as the client sent it.
type Request struct {
	// ID is the id exactly as sent: a number, a string or null.
	ID json.RawMessage
	// Method is the method name.
	Method string
	// Params is the raw params array; "[]" when absent or null.
	Params json.RawMessage
	// Notification is a request without an id member (JSON-RPC 2.0,
	// section 4.1): it is run like any call, and its answer is not sent.
	// Its ID is null. A message without an id that is not a valid request
	// is not a notification: its error is answered with id null.
	Notification bool
}

// Message is one element of a request body: a valid request, or the error
// that answers an invalid one (with the id when it could be read, else null).
type Message struct {
	Req Request
	Err *Error
}

var (
	nullID      = json.RawMessage("null")
	emptyParams = json.RawMessage("[]")
)

// NullID is the id used when a request's own id cannot be known.
func NullID() json.RawMessage { return nullID }

// Parse splits a request body into messages. A body that is not JSON, an
// empty batch or a batch over maxBatch is an error for the whole body.
// JSON text is UTF-8 (RFC 8259, section 8.1): a body with invalid UTF-8
// anywhere is a parse error, so that no id or method name is ever echoed
// into an answer that is not valid JSON itself (the JSON check, like
// encoding/json's Valid, does not check the encoding of strings).
func Parse(body []byte, maxBatch int) (msgs []Message, batch bool, err *Error) {
	if !utf8.Valid(body) {
		return nil, false, ErrNotUTF8()
	}
	if !valid(body) {
		return nil, false, ErrParse()
	}
	i := skipSpace(body, 0)
	if body[i] != '[' {
		m := parseOne(body[i:])
		return []Message{m}, false, nil
	}
	n := 0
	msgs = make([]Message, 0, 8)
	scanErr := arrayElements(body, func(elem []byte) bool {
		n++
		if n > maxBatch {
			return false
		}
		msgs = append(msgs, parseOne(elem))
		return true
	})
	switch {
	case errors.Is(scanErr, errTooDeep):
		return nil, true, errNestedTooDeep()
	case scanErr != nil:
		return nil, true, ErrParse()
	case n > maxBatch:
		return nil, true, ErrInvalidRequest("batch too large")
	case n == 0:
		return nil, true, ErrInvalidRequest("empty batch")
	}
	return msgs, true, nil
}

// parseOne reads one request object. The body is already known to be valid JSON.
func parseOne(b []byte) Message {
	var (
		req                   Request
		version, method, id   []byte
		haveVersion, haveID   bool
		haveMethod, badParams bool
	)
	err := objectFields(b, func(key, value []byte) bool {
		switch string(key) {
		case "jsonrpc":
			version, haveVersion = value, true
		case "id":
			id, haveID = value, true
		case "method":
			method, haveMethod = value, true
		case "params":
			switch value[0] {
			case '[', '{':
				// By-name params are the method table's business: the
				// starknet family uses them, the EVM family refuses them.
				req.Params = value
			case 'n':
				req.Params = nil
			default:
				badParams = true
			}
		}
		return true
	})
	if errors.Is(err, errTooDeep) {
		return Message{Req: Request{ID: nullID}, Err: errNestedTooDeep()}
	}
	if err != nil {
		// Not an object: the id cannot be read, so the answer carries null
		// (an empty id would make the response envelope invalid JSON).
		return Message{Req: Request{ID: nullID}, Err: ErrInvalidRequest("invalid request")}
	}
	if haveID && validID(id) {
		req.ID = id
	} else {
		req.ID = nullID
	}
	switch {
	case haveID && !validID(id):
		return Message{Req: req, Err: ErrInvalidRequest("invalid request: id must be a number, a string or null, at most 256 bytes")}
	case !haveVersion || !bytes.Equal(version, []byte(`"2.0"`)):
		return Message{Req: req, Err: ErrInvalidRequest(`invalid request: jsonrpc must be "2.0"`)}
	case !haveMethod || method[0] != '"':
		return Message{Req: req, Err: ErrInvalidRequest("invalid request: method must be a string")}
	case badParams:
		return Message{Req: req, Err: ErrInvalidParams("non-array args")}
	}
	if (!plainString(method, &req.Method) && json.Unmarshal(method, &req.Method) != nil) || req.Method == "" {
		return Message{Req: req, Err: ErrInvalidRequest("invalid request: method must be a non-empty string")}
	}
	if len(req.Method) > MaxMethodLength {
		return Message{Req: req, Err: ErrInvalidRequest(fmt.Sprintf("method name too long: %d > %d", len(req.Method), MaxMethodLength))}
	}
	if req.Params == nil {
		req.Params = emptyParams
	}
	req.Notification = !haveID
	return Message{Req: req}
}

// errNestedTooDeep answers valid JSON that nests deeper than the scanner goes.
func errNestedTooDeep() *Error {
	return ErrInvalidRequest(fmt.Sprintf("invalid request: nested deeper than %d levels", MaxDepth))
}

func validID(id []byte) bool {
	if len(id) == 0 || len(id) > MaxIDLength {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	case c == 'n':
		return true // null: the body is valid JSON, so nothing else starts with n
	}
	return false
}

// plainString reads a JSON string without escapes (every method name in
// practice) without encoding/json; it reports false for anything else,
// left to encoding/json. raw is a string token, quotes included.
func plainString(raw []byte, out *string) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	*out = string(inner)
	return true
}
