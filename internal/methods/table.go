package methods

import (
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/methods/override"
	"github.com/nodegate/nodegate/jsonrpc"
)

// DefaultCredits is the cost of a method that has no entry of its own.
const DefaultCredits = 80

// spec is the table of the methods of docs/spec.md: the nine eth methods are
// validated at the gateway; the rollup method belongs to the starknet family.
var spec = []Rule{
	{Name: "eth_getStorageAt", Args: []arg{required[common.Address](), required[StorageKey](), optionalOr[rpc.BlockNumberOrHash](latest)}, Idempotent: true, Credits: 80, Contracts: ContractsFirstParam, Block: BlockParam(2), Cacheable: true},
	{Name: "eth_getLogs", Args: []arg{required[filters.FilterCriteria]()}, Idempotent: true, Credits: 255, Limit: LimitGetLogs, Contracts: ContractsLogFilter, LargeAnswer: true, Block: BlockLogFilter, Cacheable: true, Answer: AnswerLogs},
	{Name: "eth_getUncleByBlockNumberAndIndex", Args: []arg{required[rpc.BlockNumber](), required[hexutil.Uint]()}, Idempotent: true, Credits: 80, Block: BlockParam(0), Lookup: true, Cacheable: true},
	{Name: "eth_getTransactionByBlockHashAndIndex", Args: []arg{required[common.Hash](), required[hexutil.Uint]()}, Idempotent: true, Failover: true, Credits: 80, Lookup: true, Proves: "blockNumber", Cacheable: true, Answer: AnswerTxInBlock},
	{Name: "eth_getTransactionByBlockNumberAndIndex", Args: []arg{required[rpc.BlockNumber](), required[hexutil.Uint]()}, Idempotent: true, Credits: 80, Block: BlockParam(0), Lookup: true, Proves: "blockNumber", Cacheable: true, Answer: AnswerTxInBlock},
	{Name: "eth_getTransactionByHash", Args: []arg{required[common.Hash]()}, Idempotent: true, Credits: 80, Lookup: true, Proves: "blockNumber", Cacheable: true, Answer: AnswerTxByHash},
	{Name: "eth_getTransactionReceipt", Args: []arg{required[common.Hash]()}, Idempotent: true, Failover: true, Credits: 80, Lookup: true, Proves: "blockNumber", Cacheable: true, Answer: AnswerReceipt},
	{Name: "eth_estimateGas", Args: []arg{required[CallArgs](), optionalOr[rpc.BlockNumberOrHash](latest), optional[override.StateOverride](), optional[override.BlockOverrides]()}, Idempotent: true, Credits: 300, Limit: LimitGasCap, Gas: GasEstimated, Executes: true, Contracts: ContractsCallTo, Overrides: []int{2, 3}, Block: BlockParam(1)},
	{Name: "eth_call", Args: []arg{required[CallArgs](), required[rpc.BlockNumberOrHash](), optional[override.StateOverride](), optional[override.BlockOverrides]()}, Idempotent: true, Failover: true, Credits: 80, Limit: LimitGasCap, Gas: GasNodeCap, Executes: true, Contracts: ContractsCallTo, Overrides: []int{2, 3}, Block: BlockParam(1), Cacheable: true},
	{Name: "rollup_pendingTransactions", Family: FamilyStarknet, Args: noArgs, Idempotent: true, Credits: 80},
}

// forwarded are standard methods with their own entries: writes are not
// idempotent, cheap methods cost less.
var forwarded = []Rule{
	{Name: "eth_sendRawTransaction", Credits: 250, Contracts: ContractsRawTxTo, Write: true, AnswersHash: true},
	// Not go-ethereum's (rollups serve it): a signed transaction and its
	// conditions, answered by the transaction's hash.
	{Name: "eth_sendRawTransactionConditional", Credits: 250, Contracts: ContractsRawTxTo, Write: true, AnswersHash: true},
	{Name: "eth_sendRawTransactionSync", Credits: 250, Contracts: ContractsRawTxTo, Write: true}, // answered by a receipt
	{Name: "eth_chainId", Idempotent: true, Credits: 5, Block: BlockChain},
	{Name: "eth_blockNumber", Idempotent: true, Credits: 80, Proves: ProvesHead},
	{Name: "net_version", Idempotent: true, Credits: 5, Block: BlockChain},
	{Name: "web3_clientVersion", Idempotent: true, Credits: 5, Block: BlockChain},
	{Name: "eth_subscribe", Credits: 5, Session: SessionSubscribe, Contracts: ContractsSubscription},
	{Name: "eth_unsubscribe", Credits: 5, Session: SessionUnsubscribe},
	// Filters belong to the key that installed them, and a log filter is
	// under eth_getLogs's limits and costs like it (the pipeline's filter
	// stage). The id methods decode the id as the node does (rpc.ID).
	{Name: "eth_newFilter", Args: []arg{required[filters.FilterCriteria]()}, Credits: 255, Limit: LimitFilter, Contracts: ContractsLogFilter},
	{Name: "eth_newBlockFilter", Credits: 80, Limit: LimitFilter},
	{Name: "eth_newPendingTransactionFilter", Credits: 80, Limit: LimitFilter},
	{Name: "eth_uninstallFilter", Args: []arg{required[rpc.ID]()}, Credits: 80, Limit: LimitFilter},
	{Name: "eth_getFilterLogs", Args: []arg{required[rpc.ID]()}, Idempotent: true, Credits: 255, Limit: LimitFilter, LargeAnswer: true},
	{Name: "eth_getFilterChanges", Args: []arg{required[rpc.ID]()}, Credits: 255, Limit: LimitFilter, LargeAnswer: true},
}

// Refused namespaces and methods (docs/spec.md, "namespaces").
var (
	defaultAllowedPrefixes = []string{"eth_", "net_", "web3_"}
	// allowedPrefixes are the namespaces forwarded by default, per family.
	allowedPrefixes = map[Family][]string{FamilyEVM: defaultAllowedPrefixes, FamilyStarknet: starknetAllowedPrefixes}
	defaultRefused  = []string{"admin_", "debug_", "personal_", "miner_", "txpool_", "engine_", "eth_sign", "eth_sendTransaction"}
)

// Table resolves method names to rules for one network.
type Table struct {
	rules   map[string]*Rule
	allowed []string
	refused []string
	family  Family
	// idempotent are the unlisted methods the network's config says may be
	// retried and batched (MarkIdempotent).
	idempotent map[string]bool
}

// NewTable builds the default table for a family.
func NewTable(family Family) *Table {
	t := &Table{rules: make(map[string]*Rule), family: family, allowed: allowedPrefixes[family], refused: defaultRefused}
	for _, list := range [][]Rule{spec, forwarded, starknetRules, standardReads, standardExecutions} {
		for i := range list {
			r := list[i]
			if r.Family == "" {
				r.Family = FamilyEVM
			}
			r.Validated = r.Args != nil
			r.Needs = needsOf[r.Name] // needs.go
			t.rules[r.Name] = &r
		}
	}
	return t
}

// Lookup returns the rule for a method on this table's network, or the
// -32601 error for a method that is unknown, refused or of another family.
func (t *Table) Lookup(method string) (*Rule, *jsonrpc.Error) {
	if r, ok := t.rules[method]; ok {
		if r.Family != t.family {
			return nil, jsonrpc.ErrMethodNotFound(method)
		}
		return r, nil
	}
	if !ValidName(method) || hasPrefix(method, t.refused) || !hasPrefix(method, t.allowed) {
		return nil, jsonrpc.ErrMethodNotFound(method)
	}
	return &Rule{Name: method, Family: t.family, Idempotent: t.idempotent[method], Credits: DefaultCredits, Executes: true, Unlisted: true}, nil
}

// Each calls fn with every rule of this table's family that has an entry
// of its own.
func (t *Table) Each(fn func(*Rule)) {
	for _, r := range t.rules {
		if r.Family == t.family {
			fn(r)
		}
	}
}

// MarkIdempotent lets the unlisted methods names be retried on another
// node and sent in upstream batches (networks[].idempotent_methods): the
// operator knows them to be reads. Names the table lists keep their rules.
func (t *Table) MarkIdempotent(names []string) {
	for _, n := range names {
		if t.idempotent == nil {
			t.idempotent = make(map[string]bool, len(names))
		}
		t.idempotent[n] = true
	}
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// ValidName admits the characters of real method names only, so that a
// forwarded name never needs escaping.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// FailoverEligible lists the methods docs/spec.md makes eligible for failover forwarding.
func FailoverEligible() []string {
	var out []string
	for _, r := range spec {
		if r.Failover {
			out = append(out, r.Name)
		}
	}
	return out
}
