package config

import "time"

// Verify turns the checks of a network's answers on or off
// (docs/pools.md, "Answers verified before they leave"); an unset switch
// keeps the check's default (internal/verify.Defaults: every check on but
// tx_sender and block_senders, the signature recoveries).
type Verify struct {
	// Identity: an answer is for what was asked (block number or hash,
	// transaction hash, index, the block of each log).
	Identity *bool `yaml:"identity"`
	// BlockHash: a block's hash is keccak of its header fields.
	BlockHash *bool `yaml:"block_hash"`
	// TransactionsRoot: a block's full transactions derive its
	// transactionsRoot.
	TransactionsRoot *bool `yaml:"transactions_root"`
	// TxHash: a transaction's hash is the hash of its fields.
	TxHash *bool `yaml:"tx_hash"`
	// TxSender: a transaction answered alone is from its signer (one
	// signature recovery per answer; default off).
	TxSender *bool `yaml:"tx_sender"`
	// BlockSenders: every transaction of a full block is from its signer
	// (one signature recovery per transaction; default off).
	BlockSenders *bool `yaml:"block_senders"`
	// ReceiptsRoot: a receipt, a block's receipts and logs are those their
	// block's receiptsRoot holds (the upstream is asked the block's header
	// and receipts: two more calls per block; default off).
	ReceiptsRoot *bool `yaml:"receipts_root"`
	// Quarantine is how long an upstream whose answer failed a check
	// stays out of service before it is probed back (1m).
	Quarantine time.Duration `yaml:"quarantine"`
}

// maxQuarantine bounds Verify.Quarantine.
const maxQuarantine = 24 * time.Hour

func (v Verify) validate(path string, bad func(field, format string, args ...any)) {
	if v.Quarantine < 0 || v.Quarantine > maxQuarantine {
		bad(path+".verify.quarantine", "want 0 (default 1m) to %s, got %s", maxQuarantine, v.Quarantine)
	}
}
