package upstream

import (
	"strings"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// nodeFaultMessages are JSON-RPC error texts that describe the node's state,
// not the request: another node (at the head, fully synced) may answer.
// A node's word that it no longer holds an old block's state or history is
// one too, from the table of such wordings (floorerrors.go).
// go-ethereum's -32002 "request timed out" is not one: the node ran the
// call for as long as its limit allows, and another node would run it as
// long again (a call that loops until its gas ends).
var nodeFaultMessages = []string{
	"header not found",
	"unknown block",
	"transaction indexing is in progress",
	"too many requests",
	"rate limit",
	"server is overloaded",
	"not synced",
	"syncing",
	// go-ethereum's log index while its chain rewinds to another fork
	// (eth_getLogs of a block it is rewriting): another node answers.
	"failed to retrieve log value pointer",
}

// IsNodeFaultAnswer reports whether a JSON-RPC error answer is the node's
// fault (a lagging or overloaded node) rather than an answer about the
// request. Reverts (code 3), invalid params and unknown methods are answers.
func IsNodeFaultAnswer(e *jsonrpc.Error) bool {
	if e == nil {
		return false
	}
	switch e.Code {
	case jsonrpc.CodeReverted, jsonrpc.CodeInvalidParams, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError:
		return false
	}
	if prunedKind(e) != methods.NeedsNothing {
		return true // floorerrors.go
	}
	msg := strings.ToLower(e.Message)
	for _, m := range nodeFaultMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
