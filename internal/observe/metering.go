package observe

import (
	"context"

	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Metering wraps the ingress's metering: it counts the calls of a refused
// request (which never reach the pipeline) and a batch's invalid entries
// as answered calls (the rate-limit decisions are the meter's own series,
// ratelimit/metrics.go). nil stays nil.
func (o *Observer) Metering(m ingress.Metering) ingress.Metering {
	if m == nil {
		return nil
	}
	return &metering{Metering: m, o: o}
}

type metering struct {
	ingress.Metering
	o *Observer
}

func (m *metering) Admit(ctx context.Context, key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, invalid int) *jsonrpc.Error {
	refused := m.Metering.Admit(ctx, key, n, calls, invalid)
	if req := requestFrom(ctx); req != nil {
		req.metered.Store(true)
		if m.o.log != nil && len(calls) > 1 {
			req.expect(len(calls)) // before any call is dispatched
		}
	}
	if refused == nil {
		return nil
	}
	code, plan, keyID := telemetry.Classify(refused), planOf(key), ""
	if key != nil {
		keyID = key.ID
	}
	req := requestFrom(ctx)
	for _, c := range calls {
		m.o.metrics.ObserveCall(n.Name, c.Req.Method, plan, code, 0)
		var entry *call
		if m.o.log != nil {
			entry = &call{method: methods.Label(c.Req.Method), code: code}
		}
		if req != nil && c.Client.Transport == "http" {
			req.note(n.Name, keyID, entry, c.Pos)
		} else if entry != nil {
			m.o.logCall(ctx, c, keyID, entry)
		}
	}
	return refused
}

func (m *metering) Record(key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, answers []*jsonrpc.Response, invalid int) {
	m.Metering.Record(key, n, calls, answers, invalid)
	for range invalid {
		m.o.metrics.ObserveCall(n.Name, "", planOf(key), telemetry.CodeInvalid, 0)
	}
}
