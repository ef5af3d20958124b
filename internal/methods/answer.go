package methods

// Answer is what a method's result is, for the checks an answer passes
// before it leaves (internal/verify): each kind is checked the same way
// for every method of that kind, against the params that name it (the
// block at the rule's Block param, else a hash at params[0]).
type Answer uint8

// The kinds of Answer.
const (
	// AnswerOther: nothing is checked.
	AnswerOther Answer = iota
	// AnswerBlock: a block or a header, named by params[0] (a number or
	// tag when the rule has a Block param, else its hash); its
	// transactions full or hashes per params[1].
	AnswerBlock
	// AnswerTxByHash: a transaction, named by its hash at params[0].
	AnswerTxByHash
	// AnswerTxInBlock: a transaction named by its block (params[0], as
	// AnswerBlock) and its index (params[1]).
	AnswerTxInBlock
	// AnswerReceipt: a receipt, named by its transaction's hash at params[0].
	AnswerReceipt
	// AnswerBlockReceipts: the receipts of the block params[0] names (a
	// number, a tag, a hash or an EIP-1898 object).
	AnswerBlockReceipts
	// AnswerLogs: the logs of the filter at params[0].
	AnswerLogs
)

// answering gives rules the same Answer.
func answering(a Answer, rules []Rule) []Rule {
	for i := range rules {
		rules[i].Answer = a
	}
	return rules
}
