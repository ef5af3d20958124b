package testenv

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Answer is one JSON-RPC answer as a test reads it: the HTTP status it
// came with, and its result or its error.
type Answer struct {
	Status int             `json:"-"`
	Result json.RawMessage `json:"result"`
	Error  *AnswerError    `json:"error"`
}

// AnswerError is a JSON-RPC error object.
type AnswerError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *AnswerError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// Call sends one JSON-RPC request (RPCBody: id 1, params raw JSON, "" for
// []) to url and returns its answer; header is as for Post. The test fails
// when the exchange fails or the answer is not one JSON-RPC object.
func Call(t testing.TB, url, method, params string, header ...string) Answer {
	t.Helper()
	status, out := PostJSON(t, url, RPCBody(method, params), header...)
	a := Answer{Status: status}
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("%s: HTTP %d, answer %.300s: %v", method, status, out, err)
	}
	return a
}
