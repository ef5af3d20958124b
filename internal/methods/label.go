package methods

// Labels for method names that are not known: a client chooses method
// names, so anything that keeps a name beyond one call (usage rows, metric
// labels, log fields) must take it through Label, which maps every name
// outside a fixed list to one of these two values.
const (
	// LabelUnknown stands for a well-formed name that is not a known method.
	LabelUnknown = "(unknown)"
	// LabelInvalid stands for a call that has no usable method name at all
	// (not a string, empty, or characters no real method name has).
	LabelInvalid = "(invalid)"
)

// standardNames are the methods of the standard APIs that nodegate forwards
// by namespace without a rule of their own. With the rules of every family
// they make the fixed set of names Label keeps.
var standardNames = []string{
	// Ethereum execution API.
	"eth_accounts", "eth_baseFee", "eth_blobBaseFee", "eth_blockNumber", "eth_call", "eth_capabilities",
	"eth_chainId", "eth_coinbase", "eth_config", "eth_createAccessList", "eth_estimateGas", "eth_feeHistory",
	"eth_gasPrice", "eth_getBalance", "eth_getBlockByHash", "eth_getBlockByNumber", "eth_getBlockReceipts",
	"eth_getBlockTransactionCountByHash", "eth_getBlockTransactionCountByNumber", "eth_getCode",
	"eth_getFilterChanges", "eth_getFilterLogs", "eth_getHeaderByHash", "eth_getHeaderByNumber", "eth_getLogs",
	"eth_getProof", "eth_getStorageAt", "eth_getStorageValues", "eth_getTransactionByBlockHashAndIndex",
	"eth_getTransactionByBlockNumberAndIndex", "eth_getTransactionByHash", "eth_getTransactionBySenderAndNonce",
	"eth_getTransactionCount", "eth_getTransactionReceipt", "eth_getUncleByBlockHashAndIndex",
	"eth_getUncleByBlockNumberAndIndex", "eth_getUncleCountByBlockHash", "eth_getUncleCountByBlockNumber",
	"eth_hashrate", "eth_maxPriorityFeePerGas", "eth_mining", "eth_newBlockFilter", "eth_newFilter",
	"eth_newPendingTransactionFilter", "eth_protocolVersion", "eth_sendRawTransaction",
	"eth_sendRawTransactionSync", "eth_sendTransaction", "eth_sign", "eth_signTransaction", "eth_signTypedData",
	"eth_simulateV1", "eth_subscribe", "eth_syncing", "eth_uninstallFilter", "eth_unsubscribe",
	"net_listening", "net_peerCount", "net_version", "web3_clientVersion", "web3_sha3",
	// Starknet JSON-RPC API.
	"starknet_addDeclareTransaction", "starknet_addDeployAccountTransaction", "starknet_addInvokeTransaction",
	"starknet_blockHashAndNumber", "starknet_blockNumber", "starknet_call", "starknet_chainId",
	"starknet_estimateFee", "starknet_estimateMessageFee", "starknet_getBlockTransactionCount",
	"starknet_getBlockWithReceipts", "starknet_getBlockWithTxHashes", "starknet_getBlockWithTxs",
	"starknet_getClass", "starknet_getClassAt", "starknet_getClassHashAt", "starknet_getCompiledCasm",
	"starknet_getEvents", "starknet_getMessagesStatus", "starknet_getNonce", "starknet_getStateUpdate",
	"starknet_getStorageAt", "starknet_getStorageProof", "starknet_getTransactionByBlockIdAndIndex",
	"starknet_getTransactionByHash", "starknet_getTransactionReceipt", "starknet_getTransactionStatus",
	"starknet_specVersion", "starknet_syncing", "starknet_traceBlockTransactions", "starknet_traceTransaction",
	"starknet_simulateTransactions", "starknet_subscribeEvents", "starknet_subscribeNewHeads",
	"starknet_subscribePendingTransactions", "starknet_subscribeTransactionStatus", "starknet_unsubscribe",
}

// knownNames is the fixed set Label keeps: every rule of every family and
// the standard names.
var knownNames = func() map[string]bool {
	out := make(map[string]bool, len(standardNames)+len(spec)+len(forwarded)+len(starknetRules)+len(devnetRules))
	for _, n := range standardNames {
		out[n] = true
	}
	for _, list := range [][]Rule{spec, forwarded, starknetRules, devnetRules} {
		for _, r := range list {
			out[r.Name] = true
		}
	}
	return out
}()

// Label is the name under which a call of method is counted, logged or
// recorded: the method itself when it is a known method, LabelInvalid when
// it could not be a method name, and LabelUnknown for anything else. The
// set of values it returns is fixed at build time, whatever clients send.
func Label(method string) string {
	if knownNames[method] {
		return method
	}
	if !ValidName(method) {
		return LabelInvalid
	}
	return LabelUnknown
}
