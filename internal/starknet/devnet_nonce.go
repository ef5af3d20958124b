package starknet

import (
	"encoding/json"

	"github.com/nodegate/nodegate/jsonrpc"
)

// CodeInvalidTxNonce is Starknet's INVALID_TRANSACTION_NONCE.
const CodeInvalidTxNonce = 52

// nonceBook keeps every sender's next nonce: in the pending state (what a
// new transaction must carry) and as of the latest block. A sender the
// devnet has not seen is at nonce 0 (it treats every address as an
// account; it deploys none).
type nonceBook struct {
	pending map[[32]byte]Felt
	sealed  map[[32]byte]Felt
}

func newNonceBook() nonceBook {
	return nonceBook{pending: make(map[[32]byte]Felt), sealed: make(map[[32]byte]Felt)}
}

func (b *nonceBook) next(sender Felt) Felt       { return b.pending[sender.Bytes()] }
func (b *nonceBook) nextSealed(sender Felt) Felt { return b.sealed[sender.Bytes()] }

// check refuses a nonce that is not the sender's next.
func (b *nonceBook) check(sender, nonce Felt) *jsonrpc.Error {
	want := b.next(sender)
	if nonce.Equal(want) {
		return nil
	}
	e := jsonrpc.NewError(CodeInvalidTxNonce, "Invalid transaction nonce")
	e.Data, _ = json.Marshal("account " + sender.String() + ": nonce " + nonce.String() + " is not the account's next nonce " + want.String())
	return e
}

// accept moves the sender's pending nonce past nonce.
func (b *nonceBook) accept(sender, nonce Felt) { b.pending[sender.Bytes()] = nonce.plusOne() }

// seal moves the sender's latest-block nonce past nonce.
func (b *nonceBook) seal(sender, nonce Felt) { b.sealed[sender.Bytes()] = nonce.plusOne() }

func (f Felt) plusOne() Felt {
	one := FeltFromUint64(1)
	f.e.Add(&f.e, &one.e)
	return f
}

// nonceAtLocked is the sender's nonce as of the block at index i of the
// kept blocks: the nonce of its first transaction in a later block, or the
// latest-block nonce when it sent none since.
func (d *Devnet) nonceAtLocked(sender Felt, i int) Felt {
	for _, b := range d.blocks[i+1:] {
		for _, tx := range b.txs {
			if tx.nonced && tx.sender.Equal(sender) {
				return tx.nonce
			}
		}
	}
	return d.nonces.nextSealed(sender)
}
