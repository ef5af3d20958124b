package devnet

import "strconv"

// Transaction statuses as the devnet reports them: a pending transaction
// is RECEIVED (in the pool, not yet in a block, no receipt); once its block
// is sealed it is ACCEPTED_ON_L2 and SUCCEEDED (the devnet executes
// nothing, so nothing reverts).
const (
	statusReceived     = `{"finality_status":"RECEIVED"}`
	statusAcceptedOnL2 = `{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED"}`
)

// appendReceipt writes the INVOKE_TXN_RECEIPT of Starknet JSON-RPC 0.8,
// with block_hash and block_number when withBlock (getTransactionReceipt)
// and without them inside a block (getBlockWithReceipts).
func (tx *storedTx) appendReceipt(buf []byte, withBlock bool) []byte {
	buf = append(buf, `{"type":"INVOKE","transaction_hash":`...)
	buf = tx.hash.AppendQuoted(buf)
	buf = append(buf, `,"actual_fee":`...)
	buf = tx.fee.appendActualFee(buf)
	buf = append(buf, `,"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2"`...)
	if withBlock && tx.block != nil {
		buf = append(buf, `,"block_hash":`...)
		buf = tx.block.hash.AppendQuoted(buf)
		buf = append(buf, `,"block_number":`...)
		buf = strconv.AppendUint(buf, tx.block.number, 10)
	}
	buf = append(buf, `,"messages_sent":[],"events":[],"execution_resources":`...)
	buf = tx.fee.appendResources(buf)
	return append(buf, '}')
}
