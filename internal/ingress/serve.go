package ingress

import (
	"context"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// serveBody is the one path from request bytes to answer bytes, shared by
// HTTP and WebSocket so that no rule exists on one transport only: parse
// (one call or a batch), run the calls through the pipeline, and append the
// answers (ids echoed as sent) to out. lead is the error that answers the
// whole body, when there is one (the HTTP status and headers come from it).
// forwardedTo names the partner that answered a call, when failover did.
func (s *Server) serveBody(ctx context.Context, out, body []byte, network *pipeline.Network, key *keys.Key, info pipeline.ClientInfo, sess pipeline.Session) (_ []byte, lead *jsonrpc.Error, forwardedTo string) {
	msgs, batch, perr := jsonrpc.Parse(body, s.Limits.MaxBatch)
	if perr != nil {
		return jsonrpc.AppendResponse(out, jsonrpc.NullID(), jsonrpc.ErrorResponse(perr)), perr, ""
	}
	calls := make([]*pipeline.Call, 0, len(msgs))
	callsStore := make([]pipeline.Call, len(msgs))
	for i := range msgs {
		if msgs[i].Err != nil {
			continue
		}
		c := &callsStore[i]
		*c = pipeline.Call{Req: msgs[i].Req, Key: key, Network: network, Client: info, Session: sess}
		calls = append(calls, c)
	}
	if s.Metering != nil {
		if refused := s.Metering.Admit(ctx, key, network, calls); refused != nil {
			return jsonrpc.AppendResponse(out, jsonrpc.NullID(), jsonrpc.ErrorResponse(refused)), refused, ""
		}
	}
	answers := s.Pipeline.ServeBatch(ctx, calls)
	if s.Metering != nil {
		s.Metering.Record(key, network, calls, answers, len(msgs)-len(calls))
	}
	for _, c := range calls {
		if c.ForwardedTo != "" {
			forwardedTo = c.ForwardedTo
			break
		}
	}
	if batch {
		out = append(out, '[')
	}
	next := 0
	for i := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		var resp *jsonrpc.Response
		if msgs[i].Err != nil {
			resp = jsonrpc.ErrorResponse(msgs[i].Err)
		} else {
			resp = answers[next]
			next++
		}
		if !batch {
			lead = resp.Err
		}
		out = jsonrpc.AppendResponse(out, msgs[i].Req.ID, resp)
	}
	if batch {
		out = append(out, ']')
	}
	return out, lead, forwardedTo
}
