package methods

import (
	"encoding/json"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Family is a network family: which methods a network serves.
type Family string

// The families of DESIGN.md.
const (
	FamilyEVM      Family = "evm"
	FamilyStarknet Family = "starknet"
)

// Rule says how nodegate treats one method.
type Rule struct {
	Name   string
	Family Family
	// Args are the positional params checked at the gateway; nil means the
	// params are passed to the node unchecked (a forwarded standard method).
	Args []arg
	// Idempotent calls may be retried on another upstream.
	Idempotent bool
	// Failover marks the methods SPEC.md makes eligible for partner failover.
	Failover bool
	// Credits is the method's default credit cost.
	Credits int
	// Validated rules are the nine methods of the spec.
	Validated bool
	// Session marks eth_subscribe/eth_unsubscribe: answered by the client's
	// connection (its subscriptions), never forwarded to a node.
	Session SessionOp
}

// SessionOp is what a session method does to the caller's subscriptions.
type SessionOp string

// The session operations.
const (
	SessionSubscribe   SessionOp = "subscribe"
	SessionUnsubscribe SessionOp = "unsubscribe"
)

// Parsed holds a call's decoded params, for later stages that look inside
// (allowlists, limits). Values are nil for absent optional params.
type Parsed []any

// Check validates params against the rule; it returns the decoded values.
func (r *Rule) Check(params json.RawMessage) (Parsed, *jsonrpc.Error) {
	if r.Args == nil {
		return nil, nil
	}
	return parseArgs(params, r.Args)
}
