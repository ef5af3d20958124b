package starknet

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/stark-curve/fp"
	pedersenhash "github.com/consensys/gnark-crypto/ecc/stark-curve/pedersen-hash"
)

// prefixInvoke is the short string "invoke", the first element of every
// INVOKE transaction hash.
var prefixInvoke = mustShortString("invoke")

// executeSelector is sn_keccak("__execute__"), the account entry point an
// INVOKE v1 calls implicitly (a v0 names it in entry_point_selector).
var executeSelector = MustFelt("0x15d40a3d6ca2ac30f4031e42be28da9b056fef9bb7357ac5e85627ee876e5ad")

func mustShortString(s string) Felt {
	f, err := FeltFromBytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return f
}

// ChainIDFelt encodes a chain id such as SN_MAIN as the short-string felt
// that hashes and starknet_chainId use.
func ChainIDFelt(name string) (Felt, error) {
	if name == "" {
		return Felt{}, fmt.Errorf("chain id is empty")
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return Felt{}, fmt.Errorf("chain id %q: only printable ASCII is allowed", Clip(name))
		}
	}
	return FeltFromBytes([]byte(name))
}

// HashChain is Starknet's compute_hash_on_elements: a Pedersen chain from
// 0 over the elements, closed with their count. It takes felts by value so
// that calldata of any length hashes without an allocation per element.
type HashChain struct {
	acc fp.Element
	n   uint64
}

// Add chains f.
func (h *HashChain) Add(f Felt) {
	h.acc = pedersenhash.Pedersen(&h.acc, &f.e)
	h.n++
}

// Sum closes the chain with its count.
func (h *HashChain) Sum() Felt {
	n := new(fp.Element).SetUint64(h.n)
	return Felt{e: pedersenhash.Pedersen(&h.acc, n)}
}

func hashOnElements(fs []Felt) Felt {
	var h HashChain
	for _, f := range fs {
		h.Add(f)
	}
	return h.Sum()
}

// InvokeV0Hash is the hash of an INVOKE v0 transaction:
// h("invoke", 0, contract_address, entry_point_selector, h(calldata), max_fee, chain_id).
func InvokeV0Hash(chainID Felt, contract, selector Felt, calldata []Felt, maxFee Felt) Felt {
	var h HashChain
	h.Add(prefixInvoke)
	h.Add(FeltFromUint64(0))
	h.Add(contract)
	h.Add(selector)
	h.Add(hashOnElements(calldata))
	h.Add(maxFee)
	h.Add(chainID)
	return h.Sum()
}

// InvokeV1Hash is the hash of an INVOKE v1 transaction:
// h("invoke", 1, sender_address, 0, h(calldata), max_fee, chain_id, nonce).
func InvokeV1Hash(chainID Felt, sender Felt, calldata []Felt, maxFee, nonce Felt) Felt {
	var h HashChain
	h.Add(prefixInvoke)
	h.Add(FeltFromUint64(1))
	h.Add(sender)
	h.Add(FeltFromUint64(0)) // v1 has no entry point selector: the account's __execute__ is implied
	h.Add(hashOnElements(calldata))
	h.Add(maxFee)
	h.Add(chainID)
	h.Add(nonce)
	return h.Sum()
}

// Hash computes the transaction hash of a decoded INVOKE for a chain.
func (tx *Invoke) Hash(chainID Felt) Felt {
	switch tx.Version {
	case 0:
		return InvokeV0Hash(chainID, tx.ContractAddress, tx.EntryPointSelector, tx.Calldata, tx.MaxFee)
	case 3:
		return InvokeV3Hash(chainID, tx.versionFelt(), tx.SenderAddress, tx.Calldata, tx.Nonce, &tx.V3)
	}
	return InvokeV1Hash(chainID, tx.SenderAddress, tx.Calldata, tx.MaxFee, tx.Nonce)
}
