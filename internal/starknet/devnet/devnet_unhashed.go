package devnet

import (
	"crypto/sha256"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// A transaction the devnet refuses is not hashed (hashing costs CPU in
// proportion to its felts, up to most of a second for a large INVOKE v1):
// an account transaction whose nonce is not its sender's next is refused
// on its nonce, or, when it is a transaction the devnet keeps sent again,
// as a duplicate, both without its hash. A kept transaction is found by
// its sender and nonce (bySenderNonce, unique: a sender's nonce moves past
// each one it accepts), and it is the same transaction when what its hash
// covers — everything but the signature — is the same (its body, a
// SHA-256 of that, costs a hash of its bytes, not of its felts).

// senderNonce is the key of an account transaction in bySenderNonce.
type senderNonce [64]byte

func keyOf(sender, nonce starknet.Felt) senderNonce {
	var k senderNonce
	s, n := sender.Bytes(), nonce.Bytes()
	copy(k[:32], s[:])
	copy(k[32:], n[:])
	return k
}

// bodyOf is the fingerprint of what tx's hash covers: its JSON without
// the signature.
func bodyOf(tx *starknet.Invoke) [32]byte {
	unsigned := *tx
	unsigned.Signature = nil
	return sha256.Sum256(unsigned.AppendJSON(nil, starknet.Felt{}))
}

// refuseUnhashed is the answer to an account transaction whose nonce is
// not its sender's next, decided before it is hashed: a duplicate when the
// devnet keeps it, else the invalid nonce. nil: it is to be hashed (a v0,
// or the sender's next nonce).
func (d *Devnet) refuseUnhashed(tx *starknet.Invoke) *jsonrpc.Error {
	if tx.Version == 0 {
		return nil
	}
	d.mu.Lock()
	wrong := d.nonces.check(tx.SenderAddress, tx.Nonce)
	kept := d.bySenderNonce[keyOf(tx.SenderAddress, tx.Nonce)]
	d.mu.Unlock()
	if wrong == nil {
		return nil
	}
	if kept != nil && kept.body == bodyOf(tx) {
		return errDuplicateTx()
	}
	return wrong
}

// errDuplicateTx answers a transaction the devnet keeps already.
func errDuplicateTx() *jsonrpc.Error {
	return jsonrpc.NewError(starknet.CodeDuplicateTx, "A transaction with the same hash already exists in the mempool")
}
