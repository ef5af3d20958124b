package telemetry

import (
	"net/http"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Code is a call's outcome class: the `code` label of
// nodegate_requests_total and the `outcome` field of the access log. The
// classes are the error kinds of the usage records (docs/ratelimit.md),
// with unauthorized kept apart from forbidden.
type Code uint8

// The outcome classes.
const (
	CodeOK           Code = iota // a result
	CodeRateLimited              // 429: over the rate or the daily credits
	CodeInvalid                  // parse error, invalid request, unknown method, bad params
	CodeUnauthorized             // 401: missing, unknown or revoked key
	CodeForbidden                // 403: the key's settings refused it
	CodeLimit                    // -32005 from a method limit (eth_getLogs)
	CodeUpstream                 // no node could answer (503)
	CodeNode                     // the node answered an error (a revert, a -32000 error)
	numCodes
)

var codeNames = [numCodes]string{"ok", "rate_limited", "invalid", "unauthorized", "forbidden", "limit", "upstream", "node"}

// String is the code's label value.
func (c Code) String() string {
	if c >= numCodes {
		return "node"
	}
	return codeNames[c]
}

// Classify is the outcome class of an answer (nil: a result).
func Classify(e *jsonrpc.Error) Code {
	switch {
	case e == nil:
		return CodeOK
	case e.Status == http.StatusTooManyRequests:
		return CodeRateLimited
	case e.Status == http.StatusUnauthorized:
		return CodeUnauthorized
	case e.Code == jsonrpc.CodeParseError || e.Code == jsonrpc.CodeInvalidRequest ||
		e.Code == jsonrpc.CodeMethodNotFound || e.Code == jsonrpc.CodeInvalidParams:
		return CodeInvalid
	case e.Status == http.StatusForbidden || (e.Code == jsonrpc.CodeUnauthorized && e.Raw == nil):
		return CodeForbidden // nodegate's refusal; a node's -32002 is its time limit (CodeNode)
	case e.Code == jsonrpc.CodeLimitExceeded && e.Raw == nil:
		return CodeLimit
	case e.Status == http.StatusServiceUnavailable:
		return CodeUpstream
	default:
		return CodeNode
	}
}

// ClassifyStatus is the outcome class of a request answered as a whole,
// from its HTTP status alone, when none of its calls was read.
func ClassifyStatus(status int) Code {
	switch {
	case status < 300:
		return CodeInvalid // a body that was not JSON-RPC, or a batch of invalid entries
	case status == http.StatusTooManyRequests:
		return CodeRateLimited
	case status == http.StatusUnauthorized:
		return CodeUnauthorized
	case status == http.StatusForbidden:
		return CodeForbidden
	case status == http.StatusServiceUnavailable:
		return CodeUpstream
	default:
		return CodeInvalid // 400, 404 (unknown network), 405, 413
	}
}
