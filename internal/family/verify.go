package family

import (
	"context"
	"encoding/json"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/verify"
)

// evmVerify is the EVM family's check of answers for nc: internal/verify's
// checks, each at its default unless nc's verify section sets it; nil
// when every check is off.
func evmVerify(nc config.Network) func(upstream.Call, json.RawMessage) error {
	checks := verifyChecks(nc.Verify)
	if !checks.Any() {
		return nil
	}
	return func(c upstream.Call, result json.RawMessage) error {
		return verify.Answer(checks, c.Rule, c.Params, result)
	}
}

// verifyChecks are the checks v turns on: verify.Defaults with v's
// switches applied.
func verifyChecks(v config.Verify) verify.Checks {
	c := verify.Defaults()
	for _, s := range []struct {
		set *bool
		on  *bool
	}{
		{v.Identity, &c.Identity}, {v.BlockHash, &c.BlockHash}, {v.TransactionsRoot, &c.TransactionsRoot},
		{v.TxHash, &c.TxHash}, {v.TxSender, &c.TxSender}, {v.BlockSenders, &c.BlockSenders}, {v.ReceiptsRoot, &c.ReceiptsRoot},
	} {
		if s.set != nil {
			*s.on = *s.set
		}
	}
	return c
}

// evmVerifyRoot is the EVM family's receipts-root check for nc (opt-in:
// verify.Checks.ReceiptsRoot): for each block of a receipt, a block's
// receipts or logs, the member is asked the block's header and receipts
// (verify.RootFetch) and the answer checked against them
// (verify.AgainstRoot); nil when the check is off.
func evmVerifyRoot(nc config.Network) func(context.Context, upstream.Call, json.RawMessage, upstream.Ask) error {
	if !verifyChecks(nc.Verify).ReceiptsRoot {
		return nil
	}
	return func(ctx context.Context, c upstream.Call, result json.RawMessage, ask upstream.Ask) error {
		for _, hash := range verify.RootBlocks(c.Rule, result) {
			headerParams, receiptsParams := verify.RootFetch(c.Rule, hash)
			header, err := ask(ctx, "eth_getBlockByHash", json.RawMessage(headerParams))
			if err != nil {
				return err
			}
			var receipts json.RawMessage
			if receiptsParams != "" {
				if receipts, err = ask(ctx, "eth_getBlockReceipts", json.RawMessage(receiptsParams)); err != nil {
					return err
				}
			}
			if err := verify.AgainstRoot(c.Rule, result, hash, header, receipts); err != nil {
				return err
			}
		}
		return nil
	}
}
