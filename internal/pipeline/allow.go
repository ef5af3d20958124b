package pipeline

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// allowKeys applies the key's per-call settings: the networks it may use
// (always), and, unless a correct secret lifted them, the method and
// contract address allowlists. A refused call answers 403 -32002; in a
// batch that is its own entry and the batch stays HTTP 200.
func allowKeys(next Handler) Handler {
	return func(ctx context.Context, c *Call) *jsonrpc.Response {
		if keyRefuses(c) {
			return jsonrpc.ErrorResponse(jsonrpc.ErrForbidden())
		}
		return next(ctx, c)
	}
}

// keyRefuses is THE rule of allowKeys: c's key does not allow its network,
// or (unless a correct secret lifted them) its method or a contract it
// names. c.Rule and c.Parsed are the rules stage's.
func keyRefuses(c *Call) bool {
	k := c.Key
	switch {
	case k == nil:
		return false
	case !k.AllowsNetwork(c.Network.Name):
		return true
	case !c.Client.Narrow.AllowsMethod(c.Req.Method):
		return true // a token's narrowing is never lifted (it comes without a secret)
	case c.Client.BypassAllowlists:
		return false
	}
	return !k.AllowsMethod(c.Req.Method) || (restrictsContracts(c) && !contractsAllowed(c))
}

// restrictsContracts: the key, or the request's token, has a contract
// allowlist for c to pass.
func restrictsContracts(c *Call) bool {
	return c.Key.RestrictsContracts() || c.Client.Narrow.RestrictsContracts()
}

// RefusedByKey reports, before the call runs, whether allowKeys will
// refuse c (the metering charges no credits for it). A call the rules
// stage refuses first (an unknown method, bad params) is not reported.
func RefusedByKey(c *Call) bool {
	k := c.Key
	if k == nil || c.Network == nil {
		return false
	}
	if !k.AllowsNetwork(c.Network.Name) || !c.Client.Narrow.AllowsMethod(c.Req.Method) || (!c.Client.BypassAllowlists && !k.AllowsMethod(c.Req.Method)) {
		return true
	}
	if c.Client.BypassAllowlists || !restrictsContracts(c) {
		return false
	}
	rule, err := c.Network.Methods.Lookup(c.Req.Method)
	if err != nil {
		return false
	}
	parsed, err := rule.Check(c.Req.Params)
	if err != nil {
		return false
	}
	params, _ := rule.WithDefaults(c.Req.Params, parsed)
	probe := Call{Req: c.Req, Key: k, Network: c.Network, Rule: rule, Parsed: parsed, Client: c.Client}
	probe.Req.Params = params
	return keyRefuses(&probe)
}

// contractsAllowed checks every contract address the call names. A call
// whose addresses cannot be read, or that could touch any contract (a
// filter without an address, a call without a to), is refused; so is a
// call that could change what an allowed contract is (overrides, EIP-7702
// authorizations), a method that runs code whose contract cannot be
// checked (eth_simulateV1, a Starknet trace), and a method the table does
// not list, since nothing says what it reads.
func contractsAllowed(c *Call) bool {
	if c.Rule == nil || c.Rule.Unlisted || overridesState(c) {
		return false
	}
	if c.Rule.Contracts == methods.ContractsNone {
		return !c.Rule.Executes
	}
	addrs, err := extractors[c.Rule.Contracts](c)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if !c.Key.AllowsContract(a) || !c.Client.Narrow.AllowsContract(a) {
			return false
		}
	}
	return true
}

// overridesState reports whether the call carries an override (any value
// but null or absent, an empty one included, at its rule's Overrides) or
// is made of them (OverridesAlways: eth_simulateV1).
func overridesState(c *Call) bool {
	if c.Rule.OverridesAlways {
		return true
	}
	for _, i := range c.Rule.Overrides {
		if _, err := param(c.Req.Params, i); !errors.Is(err, errNoAddress) {
			return true // present, or params that cannot be read
		}
	}
	return false
}

// extractor returns the contract addresses a call names.
type extractor func(c *Call) ([]common.Address, error)

// extractors read each kind of params that name contracts
// (methods.Rule.Contracts). The methods validated at the gateway read
// their decoded params (c.Parsed); forwarded ones are decoded here, only
// when a key has a contract allowlist.
var extractors = [methods.NumContracts]extractor{
	methods.ContractsFirstParam:    firstAddress,
	methods.ContractsCallTo:        callTo,
	methods.ContractsLogFilter:     logsFilter,
	methods.ContractsSubscription:  subscribeFilter,
	methods.ContractsStorageValues: storageValues,
	methods.ContractsRawTxTo:       rawTxTo,
}

var (
	errNoAddress  = errors.New("no contract address")
	errBadParams  = errors.New("params cannot be read")
	errNotAnArray = errors.New("params are not an array")
)

// parsedOr returns the decoded param i of type T when the method rules
// decoded it, else decodes it from the raw params.
func parsedOr[T any](c *Call, i int) (*T, error) {
	if i < len(c.Parsed) {
		if v, ok := c.Parsed[i].(*T); ok {
			return v, nil
		}
	}
	raw, err := param(c.Req.Params, i)
	if err != nil {
		return nil, err
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, errBadParams
	}
	return v, nil
}

// param returns the raw param at position i.
func param(params []byte, i int) ([]byte, error) {
	if !jsonrpc.IsBatch(params) {
		return nil, errNotAnArray
	}
	out := jsonrpc.Element(params, i)
	if out == nil || string(out) == "null" {
		return nil, errNoAddress
	}
	return out, nil
}

func firstAddress(c *Call) ([]common.Address, error) {
	a, err := parsedOr[common.Address](c, 0)
	if err != nil {
		return nil, err
	}
	return []common.Address{*a}, nil
}

// callTo reads a call object's recipient. A call with EIP-7702
// authorizations names none that can be checked: they give any account
// any code for the call, which the recipient may then call.
func callTo(c *Call) ([]common.Address, error) {
	args, err := parsedOr[methods.CallArgs](c, 0)
	if err != nil {
		return nil, err
	}
	if args.To == nil || len(args.AuthorizationList) > 0 {
		return nil, errNoAddress
	}
	return []common.Address{*args.To}, nil
}

func logsFilter(c *Call) ([]common.Address, error) { return filterAt(c, 0) }

func filterAt(c *Call, i int) ([]common.Address, error) {
	f, err := parsedOr[filters.FilterCriteria](c, i)
	if err != nil {
		return nil, err
	}
	if len(f.Addresses) == 0 {
		return nil, errNoAddress
	}
	return f.Addresses, nil
}

// subscribeFilter checks eth_subscribe("logs", filter); other
// subscriptions name no contract.
func subscribeFilter(c *Call) ([]common.Address, error) {
	kind, err := parsedOr[string](c, 0)
	if err != nil {
		return nil, err
	}
	if *kind != "logs" {
		return nil, nil
	}
	return filterAt(c, 1)
}

// storageValues reads eth_getStorageValues' {address: [slots]} object.
func storageValues(c *Call) ([]common.Address, error) {
	m, err := parsedOr[map[common.Address]json.RawMessage](c, 0)
	if err != nil {
		return nil, err
	}
	out := make([]common.Address, 0, len(*m))
	for a := range *m {
		out = append(out, a)
	}
	return out, nil
}

// rawTxTo reads the recipient of a signed transaction; a contract creation
// names no allowed contract, and an EIP-7702 transaction none that can be
// checked.
func rawTxTo(c *Call) ([]common.Address, error) {
	raw, err := parsedOr[hexBytes](c, 0)
	if err != nil {
		return nil, err
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(*raw); err != nil {
		return nil, errBadParams
	}
	if tx.To() == nil || len(tx.SetCodeAuthorizations()) > 0 {
		return nil, errNoAddress // a creation, or code given to accounts
	}
	return []common.Address{*tx.To()}, nil
}

// hexBytes is 0x-prefixed hex data.
type hexBytes = hexutil.Bytes
