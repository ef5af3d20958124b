package devnet

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// devnetMethod answers one method from its raw params, in the version s.
type devnetMethod func(d *Devnet, s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error)

// anySpec adapts a method that reads the same in every version.
func anySpec(fn func(d *Devnet, params json.RawMessage) (json.RawMessage, *jsonrpc.Error)) devnetMethod {
	return func(d *Devnet, _ *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
		return fn(d, params)
	}
}

// devnetMethods is the devnet's whole method set; anything else is -32601.
var devnetMethods = map[string]devnetMethod{
	"starknet_specVersion":           noParams(func(_ *Devnet, s *spec) []byte { return []byte(strconv.Quote(s.version)) }),
	"starknet_chainId":               noParams(func(d *Devnet, _ *spec) []byte { return d.chainHex }),
	"starknet_syncing":               noParams(func(*Devnet, *spec) []byte { return []byte("false") }),
	"starknet_blockNumber":           noParams((*Devnet).blockNumber),
	"starknet_blockHashAndNumber":    noParams((*Devnet).blockHashAndNumber),
	"starknet_pendingTransactions":   noParams((*Devnet).pendingTransactions),
	"starknet_getBlockWithTxs":       blockMethod(txsWhole),
	"starknet_getBlockWithTxHashes":  blockMethod(txsHashes),
	"starknet_getBlockWithReceipts":  blockMethod(txsWithReceipts),
	"starknet_getTransactionByHash":  anySpec((*Devnet).getTransactionByHash),
	"starknet_getTransactionStatus":  (*Devnet).getTransactionStatus,
	"starknet_getTransactionReceipt": (*Devnet).getTransactionReceipt,
	"starknet_getNonce":              (*Devnet).getNonce,
	"starknet_estimateFee":           (*Devnet).estimateFee,
	"starknet_call":                  (*Devnet).callFunction,
	"starknet_getClassHashAt":        (*Devnet).getClassHashAt,
	"starknet_getClassAt":            (*Devnet).getClassAt,
	"starknet_getClass":              (*Devnet).getClass,
	"devnet_createBlock":             noParams((*Devnet).createBlock),
	"devnet_getPredeployedAccounts":  anySpec((*Devnet).predeployedAccounts),
}

// devnetWrites are the methods that hash what they are sent: they take
// the request's and the account's share of hashing (devnet_hashshare.go).
var devnetWrites = map[string]func(d *Devnet, r *request, params json.RawMessage) (json.RawMessage, *jsonrpc.Error){
	"starknet_addInvokeTransaction": (*Devnet).addInvokeTransaction,
}

func (d *Devnet) call(s *spec, r *request, method string, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	if w, ok := devnetWrites[method]; ok {
		return w(d, r, params)
	}
	m, ok := devnetMethods[method]
	if !ok {
		return nil, jsonrpc.ErrMethodNotFound(method)
	}
	return m(d, s, params)
}

// noParams adapts a method that takes nothing: params absent, null, [] or {}.
func noParams(fn func(d *Devnet, s *spec) []byte) devnetMethod {
	return func(d *Devnet, s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
		if _, err := starknet.BindParams(params, nil, 0); err != nil {
			return nil, err
		}
		return fn(d, s), nil
	}
}

func (d *Devnet) blockNumber(*spec) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strconv.AppendUint(nil, d.blocks[len(d.blocks)-1].number, 10)
}

func (d *Devnet) blockHashAndNumber(*spec) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	head := d.blocks[len(d.blocks)-1]
	buf := append([]byte(nil), `{"block_hash":`...)
	buf = head.hash.AppendQuoted(buf)
	buf = append(buf, `,"block_number":`...)
	buf = strconv.AppendUint(buf, head.number, 10)
	return append(buf, '}')
}

func (d *Devnet) pendingTransactions(s *spec) []byte {
	d.mu.Lock()
	defer d.mu.Unlock()
	return appendTxs(nil, s, d.pending, txsWhole, 0)
}

func (d *Devnet) createBlock(*spec) []byte {
	d.mu.Lock()
	b := d.sealLocked()
	d.mu.Unlock()
	buf := append([]byte(nil), `{"block_hash":`...)
	buf = b.hash.AppendQuoted(buf)
	return append(buf, '}')
}

// blockMethod answers the getBlockWith* methods, which differ only in how
// they list the transactions.
func blockMethod(style txStyle) devnetMethod {
	return func(d *Devnet, s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
		args, e := starknet.BindParams(params, []string{"block_id"}, 1)
		if e != nil {
			return nil, e
		}
		id, err := s.parseBlockID(args[0])
		if err != nil {
			return nil, jsonrpc.ErrInvalidParams("invalid argument 0: " + err.Error())
		}
		d.mu.Lock()
		defer d.mu.Unlock()
		if id.tag == "pending" {
			head := d.blocks[len(d.blocks)-1]
			ts := max(uint64(time.Now().Unix()), head.timestamp)
			return appendPendingJSON(nil, s, head, ts, d.pending, style), nil
		}
		b := d.findLocked(id)
		if b == nil {
			return nil, errBlockNotFound()
		}
		return b.appendJSON(nil, s, style), nil
	}
}

func errBlockNotFound() *jsonrpc.Error {
	return jsonrpc.NewError(starknet.CodeBlockNotFound, "Block not found")
}

func (d *Devnet) getTransactionByHash(params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"transaction_hash"}, 1)
	if e != nil {
		return nil, e
	}
	var h starknet.Felt
	if err := h.UnmarshalJSON(args[0]); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 0: transaction_hash: " + err.Error())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, ok := d.byHash[h.Bytes()]
	if !ok {
		return nil, jsonrpc.NewError(starknet.CodeTxHashNotFound, "Transaction hash not found")
	}
	return tx.json, nil
}

// addInvokeTransaction validates, hashes and stores an INVOKE v0, v1 or
// v3, within r's and its account's share of hashing. On any error nothing
// is stored.
func (d *Devnet) addInvokeTransaction(r *request, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"invoke_transaction"}, 1)
	if e != nil {
		return nil, e
	}
	tx, err := starknet.DecodeInvoke(args[0], d.cfg.Tx)
	if err != nil {
		return nil, txError("invoke_transaction", err)
	}
	if e := d.precheck(tx); e != nil {
		return nil, e
	}
	if e := d.refuseUnhashed(tx); e != nil { // devnet_unhashed.go
		return nil, e
	}
	release, refused := d.hashTurn(r, tx) // devnet_hashshare.go
	if refused != nil {
		return nil, refused
	}
	d.hashed.Add(1)
	d.hashedUnits.Add(hashCost(tx))
	hash := tx.Hash(d.chainID)
	release()
	stored := &storedTx{hash: hash, json: tx.AppendJSON(nil, hash), fee: estimateFee(tx)}
	if stored.nonced = tx.Version > 0; stored.nonced {
		stored.sender, stored.nonce, stored.body = tx.SenderAddress, tx.Nonce, bodyOf(tx)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, dup := d.byHash[hash.Bytes()]; dup {
		return nil, errDuplicateTx()
	}
	if stored.nonced {
		if e := d.nonces.check(tx.SenderAddress, tx.Nonce); e != nil {
			return nil, e
		}
	}
	if e := d.admitLocked(stored); e != nil {
		return nil, e
	}
	d.pending = append(d.pending, stored)
	d.pendingBytes += stored.size()
	d.byHash[hash.Bytes()] = stored
	if stored.nonced {
		d.bySenderNonce[keyOf(stored.sender, stored.nonce)] = stored
	}
	if len(d.pending) == 1 {
		d.armLocked()
	}
	if stored.nonced {
		d.nonces.accept(tx.SenderAddress, tx.Nonce)
	}
	out := append([]byte(nil), `{"transaction_hash":`...)
	out = hash.AppendQuoted(out)
	return append(out, '}'), nil
}

// txError answers a transaction that does not decode; path names it in
// the params (invoke_transaction, request[2]).
func txError(path string, err error) *jsonrpc.Error {
	var te *starknet.TxError
	if !errors.As(err, &te) {
		return jsonrpc.ErrInvalidParams("invalid argument 0: " + path + ": " + err.Error())
	}
	if te.Code == starknet.CodeUnsupportedTxVersion {
		return jsonrpc.NewError(te.Code, "The transaction version is not supported: "+te.Err.Error())
	}
	if te.Field == "" {
		return jsonrpc.ErrInvalidParams("invalid argument 0: " + path + ": " + te.Error())
	}
	return jsonrpc.ErrInvalidParams("invalid argument 0: " + path + "." + te.Error())
}
