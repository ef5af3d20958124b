package methods

// The standard methods that nodegate forwards without checking their
// params, each with an entry of its own so that the table knows what it
// does: a read may be retried on another node and go in an upstream
// batch; a method that runs code is under the execution bounds (Executes).
// A method of an allowed namespace that is not here is Unlisted.

// standardReads are the standard read methods, at the default cost.
var standardReads = join(reads(FamilyEVM,
	"eth_accounts", "eth_baseFee", "eth_blobBaseFee", "eth_capabilities", "eth_coinbase", "eth_config",
	"eth_gasPrice", "eth_getTransactionBySenderAndNonce", "eth_hashrate",
	"eth_maxPriorityFeePerGas", "eth_mining", "eth_protocolVersion", "eth_syncing",
	"net_listening", "net_peerCount", "web3_sha3",
), withFacts(Rule{Block: BlockParam(1)}, reads(FamilyEVM,
	"eth_feeHistory",
)), blockLookups, naming(ContractsFirstParam, join(
	withFacts(Rule{Block: BlockParam(1), Cacheable: true}, reads(FamilyEVM,
		"eth_getBalance", "eth_getCode", "eth_getTransactionCount")),
	withFacts(Rule{Block: BlockParam(2)}, reads(FamilyEVM,
		"eth_getProof")),
)), naming(ContractsStorageValues, withFacts(Rule{Block: BlockParam(1)}, reads(FamilyEVM,
	"eth_getStorageValues",
))), reads(FamilyStarknet,
	"starknet_blockHashAndNumber", "starknet_getBlockTransactionCount",
	"starknet_getBlockWithTxs", "starknet_getClass", "starknet_getClassAt", "starknet_getClassHashAt",
	"starknet_getCompiledCasm", "starknet_getEvents", "starknet_getMessagesStatus", "starknet_getStateUpdate",
	"starknet_getStorageAt", "starknet_getStorageProof", "starknet_getTransactionByBlockIdAndIndex",
	"starknet_getTransactionByHash",
), withFacts(Rule{Proves: ProvesHead}, reads(FamilyStarknet,
	"starknet_blockNumber",
)))

// blockLookups are the standard reads of one block, or of something in
// it, by its number or hash (besides those of the spec's table): a null
// may come from a node that has not reached the block yet (Lookup).
var blockLookups = join(
	answering(AnswerBlock, join(
		withFacts(Rule{Block: BlockParam(0), Lookup: true, Proves: "number", Cacheable: true}, reads(FamilyEVM,
			"eth_getBlockByNumber")),
		withFacts(Rule{Block: BlockParam(0), Lookup: true, Proves: "number"}, reads(FamilyEVM,
			"eth_getHeaderByNumber")),
		withFacts(Rule{Lookup: true, Proves: "number", Cacheable: true}, reads(FamilyEVM,
			"eth_getBlockByHash")),
		withFacts(Rule{Lookup: true, Proves: "number"}, reads(FamilyEVM,
			"eth_getHeaderByHash")),
	)),
	answering(AnswerBlockReceipts, withFacts(Rule{Block: BlockParam(0), Lookup: true, Cacheable: true}, reads(FamilyEVM,
		"eth_getBlockReceipts"))),
	withFacts(Rule{Block: BlockParam(0), Lookup: true, Cacheable: true}, reads(FamilyEVM,
		"eth_getBlockTransactionCountByNumber")),
	withFacts(Rule{Block: BlockParam(0), Lookup: true}, reads(FamilyEVM,
		"eth_getUncleCountByBlockNumber", "eth_getRawTransactionByBlockNumberAndIndex")),
	withFacts(Rule{Lookup: true}, reads(FamilyEVM,
		"eth_getBlockTransactionCountByHash", "eth_getUncleByBlockHashAndIndex", "eth_getUncleCountByBlockHash",
		"eth_getRawTransactionByHash", "eth_getRawTransactionByBlockHashAndIndex")),
)

// standardExecutions are the standard methods that run code (besides
// eth_call, eth_estimateGas, starknet_call and starknet_estimateFee, which
// have entries with their own costs): reads, at the default cost, under
// the execution bounds. eth_fillTransaction runs its transaction's code to
// estimate its gas when none is given; eth_simulateV1 is made of state and
// block overrides (its blocks carry them), so it names no contract that
// bounds what it runs.
var standardExecutions = executions(
	gasCapped(GasEstimated, []Rule{
		{Name: "eth_createAccessList", Family: FamilyEVM, Idempotent: true, Credits: DefaultCredits, Contracts: ContractsCallTo, Overrides: []int{2}, Block: BlockParam(1)},
		{Name: "eth_fillTransaction", Family: FamilyEVM, Idempotent: true, Credits: DefaultCredits, Contracts: ContractsCallTo},
	}),
	gasCapped(GasSimulated, []Rule{
		{Name: "eth_simulateV1", Family: FamilyEVM, Idempotent: true, Credits: DefaultCredits, OverridesAlways: true, Block: BlockParam(1)},
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
