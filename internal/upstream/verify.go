package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Answers verified before they leave (docs/pools.md): the pool asks
// PoolConfig.Verify about each answer with a result to a call with a
// rule; a member whose answer fails is quarantined — out of service at
// once, not chosen, probed back after PoolConfig.Quarantine — and the
// call is tried on another member. When no member's answer passes, the
// call is answered ErrAnswerFailedVerification. What is checked is the
// family's (internal/verify for EVM networks); the pool only decides what
// a failure does.

// FailedCheck is implemented by an error of PoolConfig.Verify that names
// the check that failed (the metric's and the log's label).
type FailedCheck interface {
	error
	FailedCheck() string
}

// ErrAnswerFailedVerification is the answer to a call whose every answer
// failed verification.
func ErrAnswerFailedVerification() *jsonrpc.Error {
	return jsonrpc.ErrInternal("upstream answer failed verification")
}

// maxLoggedParams bounds the params a verification warning quotes (they
// are the client's).
const maxLoggedParams = 512

// verifyAnswer checks m's answer resp to c (Verify, then VerifyMore). A
// failure quarantines m and is returned.
func (p *Pool) verifyAnswer(ctx context.Context, m *Member, c Call, resp *jsonrpc.Response) error {
	if c.Rule == nil || resp.Err != nil || len(resp.Result) == 0 {
		return nil
	}
	var err error
	if p.cfg.Verify != nil {
		err = p.cfg.Verify(c, resp.Result)
	}
	check := "answer"
	if err == nil {
		if err = p.verifyMore(ctx, m, c, resp.Result); err == nil {
			return nil
		}
	}
	var fc FailedCheck
	if errors.As(err, &fc) {
		check = fc.FailedCheck()
	}
	params := c.Params
	if len(params) > maxLoggedParams {
		params = params[:maxLoggedParams]
	}
	slog.Warn("upstream answer failed verification: member quarantined", "pool", p.id, "upstream", m.Name(),
		"check", check, "method", c.Rule.Name, "params", string(params), "err", err, "quarantine", p.cfg.Quarantine)
	m.verifyFailures.Add(1)
	if p.OnVerifyFailed != nil {
		p.OnVerifyFailed(m.Name(), check)
	}
	if p.quarantine(m, err) {
		p.changed(m, false)
	}
	return err
}

// quarantine takes m out of service for PoolConfig.Quarantine. It
// returns true when this call took it out.
func (p *Pool) quarantine(m *Member, err error) bool {
	m.quarantinedUntil.Store(time.Now().Add(p.cfg.Quarantine).UnixNano())
	return m.exclude(err)
}

// quarantined reports whether m is still in quarantine: it is not probed
// back until the quarantine is over.
func (p *Pool) quarantined(m *Member) bool {
	until := m.quarantinedUntil.Load()
	if until == 0 {
		return false
	}
	if time.Now().UnixNano() < until {
		return true
	}
	m.quarantinedUntil.CompareAndSwap(until, 0)
	return false
}

// failedVerification is the answer to a call none of whose answers
// passed verification.
func failedVerification() ([]byte, *jsonrpc.Response) {
	resp := &jsonrpc.Response{Err: ErrAnswerFailedVerification()}
	return jsonrpc.AppendResponse(nil, json.RawMessage("1"), resp), resp
}
