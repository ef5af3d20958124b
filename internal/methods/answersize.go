package methods

// boundedAnswers are methods whose answer the protocol keeps small: a
// number, a hash, one transaction, one uncle header, a contract's code.
// A batch's answer budget holds back the other calls until their sizes are
// known (internal/pipeline/batch.go); these need not wait.
var boundedAnswers = map[string]bool{
	"eth_chainId": true, "eth_blockNumber": true, "net_version": true, "net_listening": true, "net_peerCount": true,
	"web3_clientVersion": true, "eth_gasPrice": true, "eth_maxPriorityFeePerGas": true, "eth_blobBaseFee": true,
	"eth_syncing": true, "eth_getBalance": true, "eth_getTransactionCount": true, "eth_getStorageAt": true,
	"eth_estimateGas": true, "eth_getCode": true, "eth_sendRawTransaction": true,
	"eth_getTransactionByHash": true, "eth_getTransactionByBlockHashAndIndex": true,
	"eth_getTransactionByBlockNumberAndIndex": true, "eth_getUncleByBlockHashAndIndex": true,
	"eth_getUncleByBlockNumberAndIndex": true, "eth_getBlockTransactionCountByHash": true,
	"eth_getBlockTransactionCountByNumber": true, "eth_getUncleCountByBlockHash": true,
	"eth_getUncleCountByBlockNumber": true,
	"starknet_chainId":               true, "starknet_blockNumber": true, "starknet_blockHashAndNumber": true,
	"starknet_getNonce": true, "starknet_getTransactionStatus": true, "starknet_specVersion": true,
}

// BoundedAnswer reports whether method's answer is small by the protocol's
// own rules, whatever the chain holds.
func BoundedAnswer(method string) bool {
	return boundedAnswers[method]
}
