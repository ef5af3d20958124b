package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Checks that ask the member more (PoolConfig.VerifyMore: the receipts
// root of a receipt's block, internal/verify): the member that gave an
// answer is asked for what the answer must agree with, each ask one more
// attempt on it (counted in its latency and faults as any). An answer
// that disagrees quarantines the member (verify.go); an ask that fails or
// is answered an error lets the answer go unconfirmed (logged at DEBUG):
// a member that cannot serve the extra call is not taken for a liar.

// Ask sends one call of method with params to the member whose answer is
// checked and returns its result.
type Ask func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// errAskAnswered is an ask answered with an error.
var errAskAnswered = errors.New("the member answered the check's call with an error")

// verifyMore runs PoolConfig.VerifyMore on m's answer result to c: an
// error names its check (FailedCheck) or is nil; an unconfirmed answer
// passes.
func (p *Pool) verifyMore(ctx context.Context, m *Member, c Call, result json.RawMessage) error {
	if p.cfg.VerifyMore == nil {
		return nil
	}
	ask := func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
		_, resp, err := p.try(ctx, time.Now().Add(p.cfg.AttemptTimeout), m, body, hedgeRole{})
		if err != nil {
			return nil, fmt.Errorf("asking %s %s: %w", method, params, err)
		}
		if resp.Err != nil {
			return nil, fmt.Errorf("asking %s %s: %w: %s", method, params, errAskAnswered, resp.Err.Message)
		}
		return resp.Result, nil
	}
	err := p.cfg.VerifyMore(ctx, c, result, ask)
	var fc FailedCheck
	if err != nil && !errors.As(err, &fc) {
		slog.Debug("upstream answer unconfirmed", "pool", p.id, "upstream", m.Name(), "method", c.Rule.Name, "err", err)
		return nil
	}
	return err
}
