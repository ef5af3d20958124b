package upstream

import (
	"strings"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The one table of the answers with which a node says it no longer holds
// what a call asks for at an old block: go-ethereum's own texts and the
// common providers' wordings. Each is a node fault (classify.go: another
// member may hold the block) and, for a call naming its block by number,
// moves the member's floor of that kind above the block (floor.go).

// prunedWording is one wording, every part of which the message holds,
// and the kind of data it says is gone.
type prunedWording struct {
	parts []string // lowercase
	kind  methods.Needs
}

func state(parts ...string) prunedWording   { return prunedWording{parts, methods.NeedsState} }
func history(parts ...string) prunedWording { return prunedWording{parts, methods.NeedsHistory} }

// prunedWordings are matched in order: the first the message holds says
// the kind.
var prunedWordings = []prunedWording{
	// go-ethereum: a trie node of the block's state is gone (hash scheme);
	// path scheme: "historical state <root> is not available", "state
	// <root> is not available".
	state("missing trie node"),
	state("historical state"),
	state("state", "is not available"),
	state("state not available"),
	// Nethermind, Erigon, Reth, Besu and providers' full nodes.
	state("no state available"),
	state("state at block", "pruned"), // reth: "state at block #N is pruned"
	state("missing state"),
	state("state", "pruned"),
	state("requires archive"),
	state("archive node"),
	state("access to archive"),
	state("no upstream serves state"), // nodegate's own (floorError)
	// go-ethereum's history pruning (code 4444) and its kin.
	history("pruned history"),
	history("history pruned"),
	history("history has been pruned"),
	history("history expired"),
	history("block", "pruned"),
	history("receipts", "pruned"),
	history("logs", "pruned"),
	history("no upstream serves logs"), // nodegate's own (floorError)
}

// CodePrunedHistory is go-ethereum's code for pruned history (EIP-4444),
// also nodegate's for a call no member serves (floorError).
const CodePrunedHistory = 4444

// prunedKind is the kind of data an error answer says the node no longer
// holds (NeedsNothing: it says no such thing). A revert or a bad request
// is never one.
func prunedKind(e *jsonrpc.Error) methods.Needs {
	if e == nil {
		return methods.NeedsNothing
	}
	switch e.Code {
	case jsonrpc.CodeReverted, jsonrpc.CodeInvalidParams, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidRequest, jsonrpc.CodeParseError:
		return methods.NeedsNothing
	}
	msg := strings.ToLower(e.Message)
	for _, w := range prunedWordings {
		if holdsAll(msg, w.parts) {
			return w.kind
		}
	}
	if e.Code == CodePrunedHistory {
		return methods.NeedsHistory
	}
	return methods.NeedsNothing
}

func holdsAll(msg string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			return false
		}
	}
	return true
}
