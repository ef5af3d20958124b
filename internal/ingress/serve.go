package ingress

import (
	"context"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/plan"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// serveBody answers body whole into out: what a WebSocket message needs.
// lead is the error that answers the whole body, when there is one (the
// HTTP status and headers come from it); forwardedTo names the partner
// that answered a call, when failover did.
func (s *Server) serveBody(ctx context.Context, out, body []byte, network *pipeline.Network, key *keys.Key, info pipeline.ClientInfo, sess pipeline.Session) (_ []byte, lead *jsonrpc.Error, forwardedTo string) {
	w := &answerWriter{buf: out}
	s.serveTo(ctx, w, body, network, key, info, sess)
	return w.buf, w.lead, w.forwardedTo
}

// serveTo is the one path from request bytes to answer bytes, shared by
// HTTP and WebSocket so that no rule exists on one transport only: parse
// (one call or a batch), admit, run the calls through the pipeline, and
// write the answers (ids echoed as sent) to w, each as soon as it and
// those before it are done. w.lead is set before the first byte that
// depends on it; w.forwardedTo once every call is answered.
//
// A notification (a request without an id) is admitted, charged, run and
// recorded like any call, and its answer is not written (JSON-RPC 2.0,
// section 4.1): a body of notifications only has an empty answer, which
// HTTP sends as 204 and a WebSocket does not send. A refusal of the whole
// body (parse error, key, rate) is still answered: nothing was run.
func (s *Server) serveTo(ctx context.Context, w *answerWriter, body []byte, network *pipeline.Network, key *keys.Key, info pipeline.ClientInfo, sess pipeline.Session) {
	msgs, batch, perr := jsonrpc.Parse(body, s.Limits.MaxBatch)
	if perr != nil {
		w.whole(perr)
		return
	}
	calls := make([]*pipeline.Call, 0, len(msgs))
	callsStore := make([]pipeline.Call, len(msgs))
	at := make([]int, 0, len(msgs)) // at[i] is the entry of msgs that calls[i] is
	for i := range msgs {
		if msgs[i].Err != nil {
			continue
		}
		c := &callsStore[i]
		*c = pipeline.Call{Req: msgs[i].Req, Key: key, Network: network, Client: info, Session: sess, Pos: len(calls)}
		calls = append(calls, c)
		at = append(at, i)
	}
	// The calls this request may run at once: what its key has free.
	parallelism, release, refused := s.Admission.Calls(key, min(len(calls), s.Pipeline.BatchParallelism()))
	if refused != nil {
		w.whole(refused)
		return
	}
	defer release()
	if key != nil && key.Plan.MaxInFlight > 0 {
		// A broadcast write's deliveries that outlive the answer stay
		// among the key's calls in flight (upstream/broadcast.go).
		ctx = upstream.WithHold(ctx, func() func() { return s.Admission.Hold(key) })
	}
	if s.Metering != nil {
		if refused := s.Metering.Admit(ctx, key, network, calls, len(msgs)-len(calls)); refused != nil {
			w.whole(refused)
			return
		}
	}
	// Admitted and charged: the connection is its key's from now on
	// (conns.go), unless the key holds all its plan allows.
	if key != nil && !s.keyConn(ctx, key) {
		w.closeConn = true
	}
	// answers keeps what the usage records need: on a batch, the error
	// alone, so that no result outlives its writing.
	answers := make([]*jsonrpc.Response, len(calls))
	w.batch = batch
	next := 0 // the next entry of msgs to write
	writeInvalid := func(upTo int) {
		for ; next < upTo; next++ {
			if !batch {
				w.lead = msgs[next].Err
			}
			w.separate()
			w.answer(msgs[next].Req.ID, jsonrpc.ErrorResponse(msgs[next].Err))
		}
	}
	emit := func(i int, r *jsonrpc.Response) error {
		writeInvalid(at[i])
		next = at[i] + 1
		if !batch {
			answers[i] = r
		} else {
			answers[i] = &jsonrpc.Response{Err: r.Err}
		}
		if calls[i].Req.Notification {
			return w.err
		}
		if !batch {
			w.lead = r.Err
		}
		w.separate()
		w.answer(msgs[at[i]].Req.ID, r)
		return w.err
	}
	s.Pipeline.ServeBatch(ctx, calls, pipeline.BatchLimits{MaxAnswerBytes: answerBudget(key), Parallelism: parallelism}, emit)
	if w.err == nil {
		writeInvalid(len(msgs))
		w.close()
	}
	if s.Metering != nil {
		s.Metering.Record(key, network, calls, answers, len(msgs)-len(calls))
	}
	for _, c := range calls {
		if c.ForwardedTo() != "" {
			w.forwardedTo = c.ForwardedTo()
			break
		}
	}
}

// answerBudget is the request's answer budget: its key's plan's, or
// go-ethereum's default for a request without a key.
func answerBudget(key *keys.Key) int64 {
	if key == nil {
		return plan.DefaultMaxResponseBytes
	}
	return key.Plan.AnswerBudget()
}
