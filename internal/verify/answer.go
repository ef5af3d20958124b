package verify

import (
	"encoding/json"

	"github.com/nodegate/nodegate/internal/methods"
)

// Answer checks result, a member's answer to a call of rule with params,
// with the checks c turns on. It returns a *Failure when a check fails,
// nil when every check that applies passed (or none applies: a method
// whose rule names no Answer, a null, a pending block).
func Answer(c Checks, rule *methods.Rule, params, result json.RawMessage) error {
	if rule == nil || rule.Answer == methods.AnswerOther || len(result) == 0 || result[0] == 'n' {
		return nil
	}
	_, byNumber := rule.Block.Param()
	switch rule.Answer {
	case methods.AnswerBlock:
		return block(c, blockAsked(params, byNumber), fullTxs(params), result)
	case methods.AnswerTxByHash:
		return txByHash(c, param(params, 0), result)
	case methods.AnswerTxInBlock:
		i, ok := index(params, 1)
		return txInBlock(c, blockAsked(params, byNumber), i, ok, result)
	case methods.AnswerReceipt:
		return receipt(c, param(params, 0), result)
	case methods.AnswerBlockReceipts:
		return blockReceipts(c, param(params, 0), result)
	case methods.AnswerLogs:
		return logs(c, filterOf(params), result)
	}
	return nil
}

// blockAsked is the block params[0] names: a number or tag when the
// method names its block by number, else a hash.
func blockAsked(params json.RawMessage, byNumber bool) ref {
	r := param(params, 0)
	if byNumber && r.byHash || !byNumber && r.byNum {
		return ref{} // not what the method takes: the node's error, not an answer to check
	}
	return r
}
