package devnet

import (
	"encoding/json"
	"strconv"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// DefaultAccounts is how many dev accounts the devnet predeploys.
const DefaultAccounts = 10

// InitialBalance is what devnet_getPredeployedAccounts says each account
// starts with (10^21, in FRI and WEI alike). It is nominal: the devnet
// keeps no balances and debits nothing.
const InitialBalance = "1000000000000000000000"

// accountSeed is the label the dev accounts' keys are derived from:
// account i's private key is starknet.DevKey(accountSeed, i). Anyone can
// compute them: they are for development only.
var accountSeed = shortString("nodegate devnet")

// Account is a predeployed dev account: an instance of the account class,
// deployed at genesis by address 0 with its public key as salt and as
// constructor calldata (the address starknet.js computes for it).
type Account struct {
	Address, PrivateKey, PublicKey starknet.Felt
}

// accountBook is the predeployed accounts and the class they are of,
// made once by New and never written after.
type accountBook struct {
	list      []Account
	byAddress map[[32]byte]bool
	classHash starknet.Felt
	classJSON []byte // the CONTRACT_CLASS answer
}

func newAccountBook(n int) accountBook {
	b := accountBook{byAddress: make(map[[32]byte]bool, n), classHash: accountClass.Hash(), classJSON: accountClass.AppendJSON(nil)}
	for i := range n {
		priv := starknet.DevKey(accountSeed, uint64(i))
		pub, err := starknet.PublicKey(priv)
		if err != nil {
			panic("devnet account key: " + err.Error()) // DevKey is in range
		}
		a := Account{Address: starknet.ContractAddress(starknet.Felt{}, pub, b.classHash, []starknet.Felt{pub}), PrivateKey: priv, PublicKey: pub}
		b.list = append(b.list, a)
		b.byAddress[a.Address.Bytes()] = true
	}
	return b
}

// Accounts lists the predeployed accounts with their keys (for the
// banner and devnet_getPredeployedAccounts).
func (d *Devnet) Accounts() []Account { return append([]Account(nil), d.accounts.list...) }

// AccountClassHash is the class hash of the predeployed accounts.
func (d *Devnet) AccountClassHash() starknet.Felt { return d.accounts.classHash }

// Starknet's errors for what is not deployed or declared.
const (
	CodeContractNotFound  = 20
	CodeClassHashNotFound = 28
)

// predeployedAccounts answers devnet_getPredeployedAccounts as
// starknet-devnet does: [{initial_balance, address, public_key,
// private_key}]. with_balance is refused: the devnet keeps no balances.
func (d *Devnet) predeployedAccounts(params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"with_balance"}, 0)
	if e != nil {
		return nil, e
	}
	if w := args[0]; w != nil && string(w) != "false" && string(w) != "null" {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 0: with_balance: the devnet keeps no balances (initial_balance is nominal)")
	}
	buf := []byte{'['}
	for i, a := range d.accounts.list {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"initial_balance":`...)
		buf = strconv.AppendQuote(buf, InitialBalance)
		buf = append(buf, `,"address":`...)
		buf = a.Address.AppendQuoted(buf)
		buf = append(buf, `,"public_key":`...)
		buf = a.PublicKey.AppendQuoted(buf)
		buf = append(buf, `,"private_key":`...)
		buf = a.PrivateKey.AppendQuoted(buf)
		buf = append(buf, '}')
	}
	return append(buf, ']'), nil
}

// feltArg reads a felt param by name.
func feltArg(raw json.RawMessage, i int, name string) (starknet.Felt, *jsonrpc.Error) {
	var f starknet.Felt
	if err := f.UnmarshalJSON(raw); err != nil {
		return f, jsonrpc.ErrInvalidParams("invalid argument " + strconv.Itoa(i) + ": " + name + ": " + err.Error())
	}
	return f, nil
}

// checkBlock reads a block id and answers 24 for a block the devnet does
// not keep. The accounts exist from genesis on, so every kept block and
// the block being built has them.
func (d *Devnet) checkBlock(s *spec, raw json.RawMessage) *jsonrpc.Error {
	id, err := s.parseBlockID(raw)
	if err != nil {
		return jsonrpc.ErrInvalidParams("invalid argument 0: " + err.Error())
	}
	if id.tag == "pending" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.indexLocked(id) < 0 {
		return errBlockNotFound()
	}
	return nil
}

// deployedAt reads (block_id, contract_address) and answers 20 for an
// address where no account is deployed.
func (d *Devnet) deployedAt(s *spec, params json.RawMessage) *jsonrpc.Error {
	args, e := starknet.BindParams(params, []string{"block_id", "contract_address"}, 2)
	if e != nil {
		return e
	}
	if e := d.checkBlock(s, args[0]); e != nil {
		return e
	}
	addr, e := feltArg(args[1], 1, "contract_address")
	if e != nil {
		return e
	}
	if !d.accounts.byAddress[addr.Bytes()] {
		return jsonrpc.NewError(CodeContractNotFound, "Contract not found")
	}
	return nil
}

// getClassHashAt: the account class's hash at a predeployed account.
func (d *Devnet) getClassHashAt(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	if e := d.deployedAt(s, params); e != nil {
		return nil, e
	}
	return d.accounts.classHash.AppendQuoted(nil), nil
}

// getClassAt: the account class at a predeployed account.
func (d *Devnet) getClassAt(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	if e := d.deployedAt(s, params); e != nil {
		return nil, e
	}
	return d.accounts.classJSON, nil
}

// getClass: the account class by its hash, the one class the devnet has.
func (d *Devnet) getClass(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"block_id", "class_hash"}, 2)
	if e != nil {
		return nil, e
	}
	if e := d.checkBlock(s, args[0]); e != nil {
		return nil, e
	}
	h, e := feltArg(args[1], 1, "class_hash")
	if e != nil {
		return nil, e
	}
	if !h.Equal(d.accounts.classHash) {
		return nil, jsonrpc.NewError(CodeClassHashNotFound, "Class hash not found")
	}
	return d.accounts.classJSON, nil
}
