package methods

// What a method says about blocks, read by the pool (which member may
// answer it, what its answer proves of that member's head) and by the cache
// (whether its answer can no longer change). They are fields of the Rule
// (Block, Proves, Lookup, Write, AnswersHash, Cacheable), set in the
// method's entry; a method without an entry (Unlisted) has none of them.

// Block is where a method's params name the block it reads.
type Block int8

// The kinds of Block besides a param's position (BlockParam).
const (
	// BlockNone: the params name no block; the call is answered at the head.
	BlockNone Block = 0
	// BlockChain: the answer is the chain's, not a block's (its id, a
	// node's version): any member in service may answer it.
	BlockChain Block = -1
	// BlockLogFilter: the first param is a log filter whose toBlock (or
	// blockHash) says the block.
	BlockLogFilter Block = -2
)

// BlockParam is the Block of a method naming its block at params[i] (a
// quantity, a tag or an EIP-1898 object).
func BlockParam(i int) Block { return Block(i + 1) }

// Param is the position of the param naming the block, when b is one.
func (b Block) Param() (int, bool) {
	if b > 0 {
		return int(b) - 1, true
	}
	return 0, false
}

// ProvesHead is the Proves of a method whose result is itself a head's
// block number (eth_blockNumber, starknet_blockNumber).
const ProvesHead = "."

// withFacts gives rules the same facts (the fields of facts this file
// describes); every other field of each rule is kept.
func withFacts(facts Rule, rules []Rule) []Rule {
	for i := range rules {
		rules[i].Block, rules[i].Proves, rules[i].Lookup = facts.Block, facts.Proves, facts.Lookup
		rules[i].Write, rules[i].AnswersHash, rules[i].Cacheable = facts.Write, facts.AnswersHash, facts.Cacheable
	}
	return rules
}
