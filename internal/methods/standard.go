package methods

// The standard methods that nodegate forwards without checking their
// params, each with an entry of its own so that the table knows what it
// does: a read may be retried on another node and go in an upstream
// batch; a method that runs code is under the execution bounds (Executes).
// A method of an allowed namespace that is not here is Unlisted.

// standardReads are the standard read methods, at the default cost.
var standardReads = join(reads(FamilyEVM,
	"eth_accounts", "eth_baseFee", "eth_blobBaseFee", "eth_capabilities", "eth_coinbase", "eth_config",
	"eth_feeHistory", "eth_gasPrice", "eth_getBlockByHash", "eth_getBlockByNumber",
	"eth_getBlockReceipts", "eth_getBlockTransactionCountByHash", "eth_getBlockTransactionCountByNumber",
	"eth_getHeaderByHash", "eth_getHeaderByNumber",
	"eth_getTransactionBySenderAndNonce", "eth_getUncleByBlockHashAndIndex",
	"eth_getUncleCountByBlockHash", "eth_getUncleCountByBlockNumber", "eth_hashrate",
	"eth_maxPriorityFeePerGas", "eth_mining", "eth_protocolVersion", "eth_syncing",
	"net_listening", "net_peerCount", "web3_sha3",
), naming(ContractsFirstParam, reads(FamilyEVM,
	"eth_getBalance", "eth_getCode", "eth_getProof", "eth_getTransactionCount",
)), naming(ContractsStorageValues, reads(FamilyEVM,
	"eth_getStorageValues",
)), reads(FamilyStarknet,
	"starknet_blockHashAndNumber", "starknet_blockNumber", "starknet_getBlockTransactionCount",
	"starknet_getBlockWithTxs", "starknet_getClass", "starknet_getClassAt", "starknet_getClassHashAt",
	"starknet_getCompiledCasm", "starknet_getEvents", "starknet_getMessagesStatus", "starknet_getStateUpdate",
	"starknet_getStorageAt", "starknet_getStorageProof", "starknet_getTransactionByBlockIdAndIndex",
	"starknet_getTransactionByHash",
))

// standardExecutions are the standard methods that run code (besides
// eth_call, eth_estimateGas, starknet_call and starknet_estimateFee, which
// have entries with their own costs): reads, at the default cost, under
// the execution bounds. eth_fillTransaction runs its transaction's code to
// estimate its gas when none is given; eth_simulateV1 is made of state and
// block overrides (its blocks carry them), so it names no contract that
// bounds what it runs.
var standardExecutions = executions(
	gasCapped(GasEstimated, []Rule{
		{Name: "eth_createAccessList", Family: FamilyEVM, Idempotent: true, Credits: DefaultCredits, Contracts: ContractsCallTo, Overrides: []int{2}},
		{Name: "eth_fillTransaction", Family: FamilyEVM, Idempotent: true, Credits: DefaultCredits, Contracts: ContractsCallTo},
	}),
	gasCapped(GasSimulated, []Rule{
		{Name: "eth_simulateV1", Family: FamilyEVM, Idempotent: true, Credits: DefaultCredits, OverridesAlways: true},
	}),
	reads(FamilyStarknet, "starknet_estimateMessageFee", "starknet_simulateTransactions",
		"starknet_traceBlockTransactions", "starknet_traceTransaction"),
)

// reads are idempotent rules of family at the default cost.
func reads(family Family, names ...string) []Rule {
	out := make([]Rule, len(names))
	for i, n := range names {
		out[i] = Rule{Name: n, Family: family, Idempotent: true, Credits: DefaultCredits}
	}
	return out
}

// naming sets where the rules' params name contracts.
func naming(c Contracts, rules []Rule) []Rule {
	for i := range rules {
		rules[i].Contracts = c
	}
	return rules
}

// gasCapped puts rules under the plan's gas cap, their gas taken as gas says.
func gasCapped(gas Gas, rules []Rule) []Rule {
	for i := range rules {
		rules[i].Limit, rules[i].Gas = LimitGasCap, gas
	}
	return rules
}

// join concatenates rule lists.
func join(lists ...[]Rule) []Rule {
	var out []Rule
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// executions marks rules as running code.
func executions(lists ...[]Rule) []Rule {
	out := join(lists...)
	for i := range out {
		out[i].Executes = true
	}
	return out
}
