package methods

import (
	"encoding/json"

	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Family is a network family: which methods a network serves.
type Family string

// The families of docs/spec.md, by the names familykind gives them.
var (
	FamilyEVM      = Family(familykind.EVM.Name)
	FamilyStarknet = Family(familykind.Starknet.Name)
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
	// Failover marks the methods docs/spec.md makes eligible for partner failover.
	Failover bool
	// Credits is the method's default credit cost.
	Credits int
	// Validated rules check their params at the gateway (the methods of
	// the spec, and the no-params pending-transactions methods).
	Validated bool
	// Limit names the extra limit of docs/spec.md ("Limits") the method is under.
	Limit Limit
	// Gas says where a method under LimitGasCap takes its gas from.
	Gas Gas
	// Session marks eth_subscribe/eth_unsubscribe: answered by the client's
	// connection (its subscriptions), never forwarded to a node.
	Session SessionOp
	// Executes marks the methods that run contract code for as long as
	// their gas lasts (eth_call, eth_estimateGas, eth_createAccessList,
	// eth_simulateV1, eth_fillTransaction, the Starknet calls and traces):
	// each runs within its key's plan's call_timeout and its share of local
	// CPUs, and, for a key with a contract allowlist, only when the
	// contract it runs can be checked.
	Executes bool
	// Unlisted marks a method the table has no entry for, forwarded by its
	// namespace (Table.Lookup): nothing is known of what it does, so it is
	// treated as the costliest kind: not idempotent (unless the network
	// lists it, Table.MarkIdempotent), under the execution bounds
	// (Executes), refused for a key with a contract allowlist.
	Unlisted bool
	// Contracts is where the method's params name the contracts it
	// touches, for a key with a contract allowlist (ContractsNone: they
	// name none, and a method that runs code is then refused).
	Contracts Contracts
	// Overrides are the positions of the params that override state or
	// the block (eth_call's 2 and 3); OverridesAlways marks a method made
	// of overrides (eth_simulateV1). With one, a call can run any code at
	// an allowed contract: refused for a key with a contract allowlist.
	Overrides       []int
	OverridesAlways bool
	// LargeAnswer marks the methods whose answers can run to tens of
	// megabytes on a busy chain (a block's or a range's logs): LargeAnswer.
	LargeAnswer bool

	// What the method says about blocks (facts.go): Block is where its
	// params name the block a node must have to answer it; Proves the
	// answer's field holding a block number its node has (ProvesHead: the
	// result is that number); Lookup marks a method whose null (or "not
	// found") may come from a node that has not reached the block or
	// transaction yet; Write a signed transaction (sent to every node), and
	// AnswersHash one answered by the transaction's hash; Cacheable a method
	// whose answers can be final (the cache judges them by Block, or by
	// Proves for a method naming its block by hash).
	Block                                 Block
	Proves                                string
	Lookup, Write, AnswersHash, Cacheable bool
	// Answer is what the method's result is, for the checks an answer
	// passes before it leaves (answer.go, internal/verify).
	Answer Answer
	// Needs is what a node must still hold at the block the call names
	// (needs.go: old state, or old blocks' bodies, receipts and logs).
	Needs Needs
}

// Contracts is where a method's params name contracts; the pipeline reads
// each kind the same way for every method of that kind.
type Contracts uint8

// The kinds of params that name contracts.
const (
	ContractsNone          Contracts = iota
	ContractsFirstParam              // an address first (eth_getBalance, eth_getStorageAt…)
	ContractsCallTo                  // a call object's to (eth_call, eth_estimateGas…)
	ContractsLogFilter               // a log filter's addresses (eth_getLogs, eth_newFilter)
	ContractsSubscription            // eth_subscribe("logs", filter)'s filter
	ContractsStorageValues           // eth_getStorageValues' {address: [slots]}
	ContractsRawTxTo                 // a signed transaction's to and authorizations
	NumContracts
)

// Limit is an extra per-method limit, enforced by the pipeline's limit stages.
type Limit uint8

// The extra limits of docs/spec.md.
const (
	NoLimit      Limit = iota
	LimitGetLogs       // parameters, results and duration of eth_getLogs
	LimitGasCap        // the plan's gas cap: every method that runs code with a gas a client sets (Gas)
	LimitFilter        // filters: owned by their key; log filters under LimitGetLogs's limits
)

// Gas is where a method under LimitGasCap takes the gas it runs with.
type Gas uint8

// The kinds of gas.
const (
	NoGas Gas = iota
	// GasEstimated: the call object's (first param) gas; without one the
	// node estimates it within the block's gas limit (eth_estimateGas,
	// eth_createAccessList, eth_fillTransaction).
	GasEstimated
	// GasNodeCap: the call object's gas; without one the node runs the call
	// with its own gas cap (eth_call), so the plan's cap is put in.
	GasNodeCap
	// GasSimulated: each simulated call's gas, and each simulated block's
	// gasLimit override (eth_simulateV1).
	GasSimulated
)

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
	if len(params) > 0 && params[0] == '{' {
		return r.checkNamed(params)
	}
	if r.Args == nil {
		return nil, nil
	}
	return parseArgs(params, r.Args)
}

// checkNamed handles params given by name (a JSON object). A family that
// takes positional params only (the EVM family, as go-ethereum does)
// refuses them; one that takes named params (namedParams: the starknet
// family) passes them to the node, except that a method without params
// accepts only an empty object.
func (r *Rule) checkNamed(params json.RawMessage) (Parsed, *jsonrpc.Error) {
	if !namedParams[r.Family] {
		return nil, jsonrpc.ErrInvalidParams("non-array args")
	}
	if r.Args != nil && len(r.Args) == 0 {
		empty := true
		if err := jsonrpc.Fields(params, func(_, _ []byte) bool { empty = false; return false }); err != nil || !empty {
			return nil, jsonrpc.ErrInvalidParams("too many arguments, want at most 0")
		}
	}
	return nil, nil
}
