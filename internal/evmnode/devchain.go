package evmnode

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// DevChainID is the dev chain's id (as go-ethereum's --dev).
const DevChainID = 1337

// Account is a funded dev account.
type Account struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

// PrivateKeyHex is the account's key as 0x-prefixed hex, for printing.
func (a Account) PrivateKeyHex() string {
	return fmt.Sprintf("0x%x", crypto.FromECDSA(a.Key))
}

// devAccounts derives n accounts from a fixed seed, so that the dev chain's
// accounts are the same on every start (as with other local dev chains);
// they are public and must never hold real value.
func devAccounts(n int) []Account {
	accs := make([]Account, n)
	for i := range accs {
		seed := crypto.Keccak256([]byte(fmt.Sprintf("nodegate dev account %d", i)))
		key, err := crypto.ToECDSA(seed)
		if err != nil {
			panic(fmt.Sprintf("dev key %d: %v", i, err)) // a keccak output is a valid key with overwhelming probability
		}
		accs[i] = Account{Address: crypto.PubkeyToAddress(key.PublicKey), Key: key}
	}
	return accs
}

// devGenesis funds each account with 10^6 ether on go-ethereum's dev genesis.
func devGenesis(accs []Account) *core.Genesis {
	g := core.DeveloperGenesisBlock(devGasLimit, nil)
	million := new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(1e18))
	for _, a := range accs {
		g.Alloc[a.Address] = types.Account{Balance: million}
	}
	return g
}
