package jsonrpc

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Standard and service error codes (see docs/spec.md, "Errors the client sees").
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	// CodeServerError is go-ethereum's code for a method's own failures
	// (an execution aborted at its time limit among them).
	CodeServerError   = -32000
	CodeLimitExceeded = -32005
	// CodeResponseTooLarge is go-ethereum's code for the calls of a batch
	// left unanswered once its answers passed the response size limit
	// (go-ethereum keeps it unexported, in rpc/errors.go).
	CodeResponseTooLarge = -32003
	CodeUnauthorized     = -32002
	CodeReverted         = 3
)

// Error is a JSON-RPC error object. Errors made by nodegate carry Code,
// Message and Data; errors received from a node keep their exact bytes in
// Raw and are written back untouched.
type Error struct {
	Code    int
	Message string
	Data    json.RawMessage
	// Status is the HTTP status to answer when this error is the whole
	// answer to a single request; 0 means 200.
	Status int
	// Header holds extra HTTP headers for such an answer (Retry-After).
	Header http.Header
	// Raw is the error object exactly as an upstream sent it.
	Raw json.RawMessage
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// ErrorCode returns the JSON-RPC code, so that the type satisfies the
// interface go-ethereum's rpc package uses.
func (e *Error) ErrorCode() int { return e.Code }

// HTTPStatus is the status line for a response that consists of this error alone.
func (e *Error) HTTPStatus() int {
	if e.Status == 0 {
		return http.StatusOK
	}
	return e.Status
}

// AppendJSON appends the error object to buf.
func (e *Error) AppendJSON(buf []byte) []byte {
	if e.Raw != nil {
		return append(buf, e.Raw...)
	}
	buf = append(buf, `{"code":`...)
	buf = strconv.AppendInt(buf, int64(e.Code), 10)
	buf = append(buf, `,"message":`...)
	msg, _ := json.Marshal(e.Message) // a string always marshals
	buf = append(buf, msg...)
	if len(e.Data) > 0 {
		buf = append(buf, `,"data":`...)
		buf = append(buf, e.Data...)
	}
	return append(buf, '}')
}

// NewError builds an error with a code and message.
func NewError(code int, msg string) *Error { return &Error{Code: code, Message: msg} }

// Constructors for the errors of docs/spec.md's table.

func ErrParse() *Error { return NewError(CodeParseError, "parse error") }

// ErrNotUTF8 is the parse error of a body that is not valid UTF-8.
func ErrNotUTF8() *Error { return NewError(CodeParseError, MsgNotUTF8) }

// MsgNotUTF8 is ErrNotUTF8's message (also a WebSocket close reason).
const MsgNotUTF8 = "parse error: invalid UTF-8"

func ErrInvalidRequest(msg string) *Error { return NewError(CodeInvalidRequest, msg) }

func ErrMethodNotFound(method string) *Error {
	return NewError(CodeMethodNotFound, fmt.Sprintf("the method %s does not exist/is not available", method))
}

func ErrInvalidParams(msg string) *Error { return NewError(CodeInvalidParams, msg) }

func ErrUpstreamUnavailable() *Error {
	return &Error{Code: CodeInternal, Message: "upstream unavailable", Status: http.StatusServiceUnavailable}
}

func ErrInternal(msg string) *Error { return NewError(CodeInternal, msg) }

// ErrResponseTooLarge answers a call whose answer would take the request
// past its answer budget, with go-ethereum's code and words.
func ErrResponseTooLarge() *Error { return NewError(CodeResponseTooLarge, "response too large") }

// ErrUnauthorized is the 401 answer for a missing or unknown key.
func ErrUnauthorized(msg string) *Error {
	return &Error{Code: CodeUnauthorized, Message: msg, Status: http.StatusUnauthorized}
}

// ErrForbidden is the 403 answer for a key whose settings refuse the request.
func ErrForbidden() *Error {
	return &Error{Code: CodeUnauthorized, Message: "rejected due to API key settings", Status: http.StatusForbidden}
}

// DecodeError reads an upstream error object, keeping its bytes for pass-through.
func DecodeError(raw []byte) *Error {
	var e struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(raw, &e) // a malformed object keeps Code 0; Raw still passes through
	return &Error{Code: e.Code, Message: e.Message, Data: e.Data, Raw: raw}
}
