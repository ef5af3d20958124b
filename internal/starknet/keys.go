package starknet

import (
	"fmt"
	"math/big"

	starkcurve "github.com/consensys/gnark-crypto/ecc/stark-curve"
	"github.com/consensys/gnark-crypto/ecc/stark-curve/fr"
)

// PublicKey is the Stark public key of a private key: the x coordinate of
// key·G on the Stark curve. The key must be in [1, n), n the curve order.
func PublicKey(private Felt) (Felt, error) {
	k := private.Big()
	if k.Sign() == 0 || k.Cmp(fr.Modulus()) >= 0 {
		return Felt{}, fmt.Errorf("private key %s is not in [1, curve order)", private)
	}
	var p starkcurve.G1Affine
	p.ScalarMultiplicationBase(k)
	return FeltFromBig(p.X.BigInt(new(big.Int)))
}

// DevKey derives the private key of a development account from a seed
// label and an index: Poseidon(label, index) reduced modulo the curve
// order (0 becomes 1). Anyone can compute it: for devnets only.
func DevKey(label Felt, index uint64) Felt {
	v := poseidonHash(label, FeltFromUint64(index)).Big()
	v.Mod(v, fr.Modulus())
	if v.Sign() == 0 {
		v.SetInt64(1)
	}
	f, _ := FeltFromBig(v) // below 2^251, or the curve order: a felt
	return f
}
