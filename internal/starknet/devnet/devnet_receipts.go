package devnet

import "strconv"

// Transaction statuses as the devnet reports them. Once its block is sealed
// a transaction is ACCEPTED_ON_L2 and SUCCEEDED (the devnet executes
// nothing, so nothing reverts). Before, it is in the block being built:
// on 0.8 RECEIVED (in the pool, no receipt); from 0.9 on PRE_CONFIRMED and
// SUCCEEDED, with a receipt naming the block's number but no hash.
const (
	statusReceived     = `{"finality_status":"RECEIVED"}`
	statusPreConfirmed = `{"finality_status":"PRE_CONFIRMED","execution_status":"SUCCEEDED"}`
	statusAcceptedOnL2 = `{"finality_status":"ACCEPTED_ON_L2","execution_status":"SUCCEEDED"}`
)

// status is the TXN_STATUS_RESULT of tx.
func (tx *storedTx) status(s *spec) string {
	switch {
	case tx.block != nil:
		return statusAcceptedOnL2
	case s.preConfirmed:
		return statusPreConfirmed
	}
	return statusReceived
}

// hasReceipt reports whether tx has a receipt yet.
func (tx *storedTx) hasReceipt(s *spec) bool { return tx.block != nil || s.preConfirmed }

// appendReceipt writes the INVOKE_TXN_RECEIPT of the version, with the
// block's hash and number when withBlock (getTransactionReceipt) and
// without them inside a block (getBlockWithReceipts). next is the number
// of the block being built, which a pending transaction's receipt names
// from 0.9 on (without a block_hash). On 0.8 a pending transaction's
// receipt (only in the pending block with receipts) reads as it will once
// sealed.
func (tx *storedTx) appendReceipt(buf []byte, s *spec, withBlock bool, next uint64) []byte {
	buf = append(buf, `{"type":"INVOKE","transaction_hash":`...)
	buf = tx.hash.AppendQuoted(buf)
	buf = append(buf, `,"actual_fee":`...)
	buf = tx.fee.appendActualFee(buf)
	if tx.block == nil && s.preConfirmed {
		buf = append(buf, `,"execution_status":"SUCCEEDED","finality_status":"PRE_CONFIRMED"`...)
	} else {
		buf = append(buf, `,"execution_status":"SUCCEEDED","finality_status":"ACCEPTED_ON_L2"`...)
	}
	if withBlock {
		switch {
		case tx.block != nil:
			buf = append(buf, `,"block_hash":`...)
			buf = tx.block.hash.AppendQuoted(buf)
			buf = append(buf, `,"block_number":`...)
			buf = strconv.AppendUint(buf, tx.block.number, 10)
		case s.preConfirmed:
			buf = append(buf, `,"block_number":`...)
			buf = strconv.AppendUint(buf, next, 10)
		}
	}
	buf = append(buf, `,"messages_sent":[],"events":[],"execution_resources":`...)
	buf = tx.fee.appendResources(buf)
	return append(buf, '}')
}
