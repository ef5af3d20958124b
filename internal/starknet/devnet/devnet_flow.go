package devnet

import (
	"encoding/json"
	"fmt"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/jsonrpc"
)

// The methods a starknet.js client needs for its standard flow (Starknet
// JSON-RPC 0.8 and 0.10): nonces, fee estimates, statuses and receipts,
// and an honest answer to starknet_call.

// hashParam reads the one transaction_hash param of a method.
func hashParam(params json.RawMessage) (starknet.Felt, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"transaction_hash"}, 1)
	if e != nil {
		return starknet.Felt{}, e
	}
	var h starknet.Felt
	if err := h.UnmarshalJSON(args[0]); err != nil {
		return starknet.Felt{}, jsonrpc.ErrInvalidParams("invalid argument 0: transaction_hash: " + err.Error())
	}
	return h, nil
}

func errTxHashNotFound() *jsonrpc.Error {
	return jsonrpc.NewError(starknet.CodeTxHashNotFound, "Transaction hash not found")
}

// getTransactionStatus: RECEIVED (0.8) or PRE_CONFIRMED (0.10) while
// pending, ACCEPTED_ON_L2 and SUCCEEDED once in a block.
func (d *Devnet) getTransactionStatus(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	h, e := hashParam(params)
	if e != nil {
		return nil, e
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, ok := d.byHash[h.Bytes()]
	if !ok {
		return nil, errTxHashNotFound()
	}
	return json.RawMessage(tx.status(s)), nil
}

// getTransactionReceipt: on 0.8 a receipt exists once the transaction is
// in a block (a RECEIVED one answers 29 as real nodes do); on 0.10 a
// pending transaction is PRE_CONFIRMED and has one, naming the number of
// the block being built.
func (d *Devnet) getTransactionReceipt(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	h, e := hashParam(params)
	if e != nil {
		return nil, e
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, ok := d.byHash[h.Bytes()]
	if !ok || !tx.hasReceipt(s) {
		return nil, errTxHashNotFound()
	}
	return tx.appendReceipt(nil, s, true, d.blocks[len(d.blocks)-1].number+1), nil
}

// getNonce: the sender's next nonce in the pending state, or as of a kept
// block. Every address has one (0 until it sends).
func (d *Devnet) getNonce(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"block_id", "contract_address"}, 2)
	if e != nil {
		return nil, e
	}
	id, err := s.parseBlockID(args[0])
	if err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 0: " + err.Error())
	}
	var addr starknet.Felt
	if err := addr.UnmarshalJSON(args[1]); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 1: contract_address: " + err.Error())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if id.tag == "pending" {
		return d.nonces.next(addr).AppendQuoted(nil), nil
	}
	i := d.indexLocked(id)
	if i < 0 {
		return nil, errBlockNotFound()
	}
	return d.nonceAtLocked(addr, i).AppendQuoted(nil), nil
}

// maxEstimates bounds the transactions of one starknet_estimateFee.
const maxEstimates = 100

// estimateFee answers FEE_ESTIMATE per transaction from the fixed prices
// and formula of devnet_fees.go. Each transaction is checked as
// starknet_addInvokeTransaction checks it (query versions allowed); the
// devnet runs no validation, so nonce and signature are not looked at.
func (d *Devnet) estimateFee(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"request", "simulation_flags", "block_id"}, 3)
	if e != nil {
		return nil, e
	}
	if err := checkSimulationFlags(args[1]); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 1: simulation_flags: " + err.Error())
	}
	id, err := s.parseBlockID(args[2])
	if err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 2: " + err.Error())
	}
	raw := args[0]
	if len(raw) == 0 || raw[0] != '[' {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 0: request: must be an array of transactions, got " + starknet.JSONKind(raw))
	}
	var txs []*starknet.Invoke
	var fail *jsonrpc.Error
	_ = jsonrpc.Elements(raw, func(elem []byte) bool {
		if len(txs) == maxEstimates {
			fail = jsonrpc.ErrInvalidParams(fmt.Sprintf("invalid argument 0: request: more than %d transactions", maxEstimates))
			return false
		}
		tx, err := starknet.DecodeInvokeQuery(elem, d.cfg.Tx)
		if err != nil {
			fail = txError(fmt.Sprintf("request[%d]", len(txs)), err)
			return false
		}
		txs = append(txs, tx)
		return true
	})
	if fail != nil {
		return nil, fail
	}
	if id.tag != "pending" {
		d.mu.Lock()
		found := d.indexLocked(id) >= 0
		d.mu.Unlock()
		if !found {
			return nil, errBlockNotFound()
		}
	}
	out := []byte{'['}
	for i, tx := range txs {
		if i > 0 {
			out = append(out, ',')
		}
		out = estimateFee(tx).appendJSON(out)
	}
	return append(out, ']'), nil
}

// checkSimulationFlags admits the one flag of starknet_estimateFee.
func checkSimulationFlags(raw json.RawMessage) error {
	var flags []string
	if err := json.Unmarshal(raw, &flags); err != nil || raw[0] != '[' {
		return fmt.Errorf(`must be an array of flags ("SKIP_VALIDATE"), got %s`, starknet.JSONKind(raw))
	}
	for _, f := range flags {
		if f != "SKIP_VALIDATE" {
			return fmt.Errorf(`unknown flag %q (want "SKIP_VALIDATE")`, starknet.Clip(f))
		}
	}
	return nil
}

// CodeContractError is Starknet's CONTRACT_ERROR.
const CodeContractError = 40

// callFunction answers starknet_call honestly: after checking the request, with
// Starknet's CONTRACT_ERROR saying that the devnet executes no code.
func (d *Devnet) callFunction(s *spec, params json.RawMessage) (json.RawMessage, *jsonrpc.Error) {
	args, e := starknet.BindParams(params, []string{"request", "block_id"}, 2)
	if e != nil {
		return nil, e
	}
	var req map[string]json.RawMessage
	if len(args[0]) == 0 || args[0][0] != '{' || json.Unmarshal(args[0], &req) != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 0: request: must be a function call object, got " + starknet.JSONKind(args[0]))
	}
	for _, f := range []string{"contract_address", "entry_point_selector"} {
		if _, err := starknet.FeltField(req, f, true); err != nil {
			return nil, jsonrpc.ErrInvalidParams("invalid argument 0: request." + err.Error())
		}
	}
	if _, err := starknet.FeltArray(req, "calldata", d.cfg.Tx.MaxCalldata); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 0: request." + err.Error())
	}
	if _, err := s.parseBlockID(args[1]); err != nil {
		return nil, jsonrpc.ErrInvalidParams("invalid argument 1: " + err.Error())
	}
	ce := jsonrpc.NewError(CodeContractError, "Contract error")
	ce.Data = json.RawMessage(`{"revert_error":"this devnet executes no code: it keeps transactions and nonces, not contracts, so starknet_call has nothing to run"}`)
	return nil, ce
}
