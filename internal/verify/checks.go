package verify

import "fmt"

// Checks are the checks a network runs on answers (docs/pools.md,
// "Answers verified before they leave"). Defaults turns on the cheap ones.
type Checks struct {
	// Identity: the answer is for what was asked (number, hash, index,
	// the block of each log).
	Identity bool
	// BlockHash: a block's hash is keccak of its header fields.
	BlockHash bool
	// TransactionsRoot: a block with full transactions has the
	// transactionsRoot of those transactions.
	TransactionsRoot bool
	// TxHash: a transaction's hash (alone, or each of a full block's) is
	// the hash of its fields.
	TxHash bool
	// TxSender: a transaction answered alone has the from its signature
	// recovers to (one signature recovery per answer, about as much CPU
	// as the rest of a proxied call: off by default).
	TxSender bool
	// BlockSenders: TxSender for every transaction of a full block (one
	// recovery per transaction: off by default).
	BlockSenders bool
	// ReceiptsRoot: a receipt, a block's receipts and a block's logs are
	// those its block's receiptsRoot holds (receiptsroot.go: the caller
	// fetches the block's header and receipts, two more upstream calls
	// per block: off by default).
	ReceiptsRoot bool
}

// The names of the checks, as a Failure and the configuration give them.
const (
	CheckIdentity         = "identity"
	CheckBlockHash        = "block_hash"
	CheckTransactionsRoot = "transactions_root"
	CheckTxHash           = "tx_hash"
	CheckTxSender         = "tx_sender"
	CheckBlockSenders     = "block_senders"
	CheckReceiptsRoot     = "receipts_root"
)

// Defaults are the checks a network runs unless configured: the cheap
// ones (BenchmarkChecks): identity, and a block's hash and transactions
// root. TxHash (go-ethereum's transaction decoding and hashing, about 20
// µs on every transaction answered, more than the rest of a proxied call
// costs nodegate) and the signature recoveries (TxSender, BlockSenders)
// are an operator's choice.
func Defaults() Checks {
	return Checks{Identity: true, BlockHash: true, TransactionsRoot: true}
}

// Any reports whether some check of the answer alone is on (all but
// ReceiptsRoot).
func (c Checks) Any() bool {
	return c.Identity || c.BlockHash || c.TransactionsRoot || c.TxHash || c.TxSender || c.BlockSenders
}

// Failure is an answer that failed a check: Check names it, Reason says
// what did not hold.
type Failure struct {
	Check  string
	Reason string
}

func (f *Failure) Error() string { return fmt.Sprintf("answer failed check %s: %s", f.Check, f.Reason) }

func fail(check, format string, args ...any) *Failure {
	return &Failure{Check: check, Reason: fmt.Sprintf(format, args...)}
}

// FailedCheck names the check that failed (upstream.FailedCheck).
func (f *Failure) FailedCheck() string { return f.Check }
