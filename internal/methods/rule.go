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
	// Limit names the extra limit of SPEC.md ("Limits") the method is under.
	Limit Limit
}

// Limit is an extra per-method limit, enforced by the pipeline's limit stages.
type Limit uint8

// The extra limits of SPEC.md.
const (
	NoLimit      Limit = iota
	LimitGetLogs       // parameters, results and duration of eth_getLogs
	LimitGasCap        // the gas cap of eth_call and eth_estimateGas
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
