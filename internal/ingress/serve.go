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
	calls, at := newCalls(msgs, key, network, info, sess)
	invalid := len(msgs) - len(calls)
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
		if refused := s.Metering.Admit(ctx, key, network, calls, invalid); refused != nil {
			w.whole(refused)
			return
		}
	}
	// Admitted and charged: the connection is its key's from now on
	// (connguard.go), unless the key holds all its plan allows.
	if key != nil && !s.keyConn(ctx, key) {
		w.closeConn = true
	}
	o := &answerOrder{w: w, msgs: msgs, at: at, calls: calls, answers: make([]*jsonrpc.Response, len(calls)), batch: batch}
	if batch {
		o.kept = make([]jsonrpc.Response, len(calls))
	}
	w.batch = batch
	s.Pipeline.ServeBatch(ctx, calls, pipeline.BatchLimits{MaxAnswerBytes: answerBudget(key), Parallelism: parallelism}, o.emit)
	if w.err == nil {
		o.writeInvalid(len(msgs))
		w.close()
	}
	if s.Metering != nil {
		s.Metering.Record(key, network, calls, o.answers, invalid)
	}
	w.forwardedTo = forwardedTo(calls)
}

// newCalls are the calls of a request's valid entries, each with the
// request's key, network, client and session; at[i] is the entry of msgs
// that calls[i] is.
func newCalls(msgs []jsonrpc.Message, key *keys.Key, network *pipeline.Network, info pipeline.ClientInfo, sess pipeline.Session) (calls []*pipeline.Call, at []int) {
	calls = make([]*pipeline.Call, 0, len(msgs))
	store := make([]pipeline.Call, len(msgs))
	at = make([]int, 0, len(msgs))
	for i := range msgs {
		if msgs[i].Err != nil {
			continue
		}
		c := &store[i]
		*c = pipeline.Call{Req: msgs[i].Req, Key: key, Network: network, Client: info, Session: sess, Pos: len(calls)}
		calls = append(calls, c)
		at = append(at, i)
	}
	return calls, at
}

// answerOrder writes a request's answers in its entries' order as the
// pipeline emits them: each invalid entry's error before the calls after
// it, no answer for a notification. answers keeps what the usage records
// need: on a batch, the error alone, so that no result outlives its
// writing.
type answerOrder struct {
	w       *answerWriter
	msgs    []jsonrpc.Message
	at      []int
	calls   []*pipeline.Call
	answers []*jsonrpc.Response
	kept    []jsonrpc.Response // a batch's answers as metering keeps them: their errors, not their results
	batch   bool
	next    int // the next entry of msgs to write
}

// writeInvalid writes the errors of the invalid entries before upTo.
func (o *answerOrder) writeInvalid(upTo int) {
	for ; o.next < upTo; o.next++ {
		if !o.batch {
			o.w.lead = o.msgs[o.next].Err
		}
		o.w.separate()
		o.w.answer(o.msgs[o.next].Req.ID, jsonrpc.ErrorResponse(o.msgs[o.next].Err))
	}
}

// emit is the pipeline's Emit: call i's answer r, after the invalid
// entries before it.
func (o *answerOrder) emit(i int, r *jsonrpc.Response) error {
	o.writeInvalid(o.at[i])
	o.next = o.at[i] + 1
	if !o.batch {
		o.answers[i] = r
	} else {
		o.kept[i] = jsonrpc.Response{Err: r.Err} // one allocation for the batch, not one per answer
		o.answers[i] = &o.kept[i]
	}
	if o.calls[i].Req.Notification {
		return o.w.err
	}
	if !o.batch {
		o.w.lead = r.Err
	}
	o.w.separate()
	o.w.answer(o.msgs[o.at[i]].Req.ID, r)
	return o.w.err
}

// forwardedTo names the partner that answered one of calls, when failover
// did ("" none).
func forwardedTo(calls []*pipeline.Call) string {
	for _, c := range calls {
		if c.ForwardedTo() != "" {
			return c.ForwardedTo()
		}
	}
	return ""
}

// answerBudget is the request's answer budget: its key's plan's, or
// go-ethereum's default for a request without a key.
func answerBudget(key *keys.Key) int64 {
	if key == nil {
		return plan.DefaultMaxResponseBytes
	}
	return key.Plan.AnswerBudget()
}
