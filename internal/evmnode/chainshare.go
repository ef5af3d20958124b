package evmnode

import (
	"encoding/hex"
	"sync"

	"github.com/ethereum/go-ethereum/core/types"
)

// No account may fill the chain for the others: besides the chain's budget
// (Config.MaxChainBytes), each account (admission.Account: a dashboard
// key's account, an operator key, a keyless client's address; carried by
// the call's context) has a share of it, Config.MaxChainBytesPerAccount,
// by default an eighth of the budget. Every write is charged to its
// account when it is sent: its transaction's bytes and the most state its
// gas limit lets it write; a write the node refuses is given back. Once an
// account's writes would pass its share, its transactions answer -32005
// naming node.max_chain_bytes_per_account while every other account's go
// on. The charges are never given back while the chain lives: its blocks
// are never pruned, so a share that renewed with time would let one
// account fill the chain after all. Filling the chain's budget takes
// MaxChainBytes / MaxChainBytesPerAccount accounts (eight by default); a
// restart starts a new chain and new shares.

// DefaultShareDivisor is how many accounts' default shares make the
// chain's budget.
const DefaultShareDivisor = 8

// chainShares is what each account's writes have been charged.
type chainShares struct {
	max int64 // 0: no share

	mu      sync.Mutex
	charged map[string]int64 // account → bytes charged; at most one entry per ~2 KiB of the budget
}

// take charges account n bytes; false when that would pass its share
// (nothing is then charged). The account "" (a write without a caller:
// the process's own) has no share.
func (s *chainShares) take(account string, n int64) bool {
	if s.max <= 0 || account == "" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.charged[account]+n > s.max {
		return false
	}
	if s.charged == nil {
		s.charged = make(map[string]int64)
	}
	s.charged[account] += n
	return true
}

// giveBack returns n bytes charged to account by take.
func (s *chainShares) giveBack(account string, n int64) {
	if s.max <= 0 || account == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if left := s.charged[account] - n; left > 0 {
		s.charged[account] = left
	} else {
		delete(s.charged, account)
	}
}

// chargedTo is what account's writes have been charged.
func (s *chainShares) chargedTo(account string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charged[account]
}

// writeCharge is what a write of the raw transaction in hex (without its
// 0x) is charged to its account: its bytes as the chain counts them
// (txBytes), and for its gas beyond its intrinsic and calldata gas the
// state and logs that gas could write at most (a byte per stateBytesPerGas
// gas, each). A transaction that does not decode is charged its bytes
// only: the node refuses it and the charge is given back.
func writeCharge(rawHex []byte) int64 {
	size := int64(len(rawHex) / 2)
	charge := txBytes(size)
	raw := make([]byte, size)
	if _, err := hex.Decode(raw, rawHex[:2*size]); err != nil {
		return charge
	}
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil {
		return charge
	}
	intrinsic := txGas + calldataGasPerByte*uint64(len(tx.Data()))
	if tx.Gas() > intrinsic {
		charge += 2 * int64((tx.Gas()-intrinsic)/stateBytesPerGas)
	}
	return charge
}
