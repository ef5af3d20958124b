package family

import (
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
		{v.TxHash, &c.TxHash}, {v.TxSender, &c.TxSender}, {v.BlockSenders, &c.BlockSenders},
	} {
		if s.set != nil {
			*s.on = *s.set
		}
	}
	return c
}
