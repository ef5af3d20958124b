package devnet

import (
	"encoding/json"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// CodeInvalidTxNonce is Starknet's INVALID_TRANSACTION_NONCE.
const CodeInvalidTxNonce = 52

// nonceBook keeps every sender's next nonce: in the pending state (what a
// new transaction must carry) and as of the latest block. A sender the
// devnet has not seen is at nonce 0 (it treats every address as an
// account; it deploys none).
type nonceBook struct {
	pending map[[32]byte]starknet.Felt
	sealed  map[[32]byte]starknet.Felt
}

func newNonceBook() nonceBook {
	return nonceBook{pending: make(map[[32]byte]starknet.Felt), sealed: make(map[[32]byte]starknet.Felt)}
}

func (b *nonceBook) next(sender starknet.Felt) starknet.Felt       { return b.pending[sender.Bytes()] }
func (b *nonceBook) nextSealed(sender starknet.Felt) starknet.Felt { return b.sealed[sender.Bytes()] }

// known reports whether the book has sender; accounts is how many it has.
func (b *nonceBook) known(sender starknet.Felt) bool {
	_, ok := b.pending[sender.Bytes()]
	return ok
}
func (b *nonceBook) accounts() int { return len(b.pending) }

// check refuses a nonce that is not the sender's next.
func (b *nonceBook) check(sender, nonce starknet.Felt) *jsonrpc.Error {
	want := b.next(sender)
	if nonce.Equal(want) {
		return nil
	}
	e := jsonrpc.NewError(CodeInvalidTxNonce, "Invalid transaction nonce")
	e.Data, _ = json.Marshal("account " + sender.String() + ": nonce " + nonce.String() + " is not the account's next nonce " + want.String())
	return e
}

// accept moves the sender's pending nonce past nonce.
func (b *nonceBook) accept(sender, nonce starknet.Felt) { b.pending[sender.Bytes()] = nonce.PlusOne() }

// seal moves the sender's latest-block nonce past nonce.
func (b *nonceBook) seal(sender, nonce starknet.Felt) { b.sealed[sender.Bytes()] = nonce.PlusOne() }

// nonceAtLocked is the sender's nonce as of the block at index i of the
// kept blocks: the nonce of its first transaction in a later block, or the
// latest-block nonce when it sent none since.
func (d *Devnet) nonceAtLocked(sender starknet.Felt, i int) starknet.Felt {
	for _, b := range d.blocks[i+1:] {
		for _, tx := range b.txs {
			if tx.nonced && tx.sender.Equal(sender) {
				return tx.nonce
			}
		}
	}
	return d.nonces.nextSealed(sender)
}
