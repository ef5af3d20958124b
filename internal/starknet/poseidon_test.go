package starknet

import "testing"

// TestPoseidon checks the permutation against values of Starknet's
// poseidon_hash and poseidon_hash_many computed by @scure/starknet (the
// library starknet.js hashes with), including an empty input, an odd
// length and the largest felts.
func TestPoseidon(t *testing.T) {
	pMinus1 := MustFelt("0x800000000000011000000000000000000000000000000000000000000000000")
	for _, tc := range []struct {
		name string
		got  Felt
		want string
	}{
		{"hash(1, 2)", poseidonHash(FeltFromUint64(1), FeltFromUint64(2)), "0x5d44a3decb2b2e0cc71071f7b802f45dd792d064f0fc7316c46514f70f9891a"},
		{"many()", poseidonHashMany(), "0x2272be0f580fd156823304800919530eaa97430e972d7213ee13f4fbf7a5dbc"},
		{"many(1)", poseidonHashMany(FeltFromUint64(1)), "0x579e8877c7755365d5ec1ec7d3a94a457eff5d1f40482bbe9729c064cdead2"},
		{"many(1, 2, 3)", poseidonHashMany(FeltFromUint64(1), FeltFromUint64(2), FeltFromUint64(3)), "0x2f0d8840bcf3bc629598d8a6cc80cb7c0d9e52d93dab244bbf9cd0dca0ad082"},
		{"many(P-1, P-1)", poseidonHashMany(pMinus1, pMinus1), "0x1dbf052b3ae2feeaffaadc6e1b5583b2762bd36db274b213d9d71fee89236b7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.got.String(); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}
