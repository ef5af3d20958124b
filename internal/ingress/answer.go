package ingress

import (
	"encoding/json"

	"github.com/nodegate/nodegate/jsonrpc"
)

// answerWriter collects a request's answer as serveTo writes it. Without
// send it keeps every byte (a WebSocket answer is one message). With send
// (HTTP) it hands on what it holds each time it holds sendAt bytes, and
// passes a large result straight from the call's answer, so that neither
// a batch's answers nor one large result are copied into one buffer.
type answerWriter struct {
	buf []byte
	// lead is the error that answers the whole request, when there is one;
	// it is set before any byte that depends on it is sent.
	lead *jsonrpc.Error
	// forwardedTo names the partner that answered a call, when failover did.
	forwardedTo string
	// closeConn: the connection is not kept after this answer (its key
	// holds all the connections its plan allows: keyConn). Set before the
	// first byte is sent.
	closeConn bool

	// batch: the answer is an array, opened before its first entry and
	// closed by close; entries counts the entries written (a batch of
	// notifications only has none, and an empty answer).
	batch   bool
	entries int

	send   func(b []byte) error // writes b out; it must not keep b
	sendAt int
	sent   bool  // part of the answer has gone out
	err    error // the first send's error: nothing more is written
}

// whole makes e the answer to the whole request (id null).
func (w *answerWriter) whole(e *jsonrpc.Error) {
	w.lead = e
	w.buf = jsonrpc.AppendResponse(w.buf, jsonrpc.NullID(), jsonrpc.ErrorResponse(e))
}

// write appends raw bytes of the answer (batch brackets).
func (w *answerWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, b...)
	w.sendIfFull()
}

// separate writes what comes before the next entry: the batch's opening
// bracket before the first, a comma before the others.
func (w *answerWriter) separate() {
	if w.err != nil {
		return
	}
	switch {
	case !w.batch:
	case w.entries == 0:
		w.buf = append(w.buf, '[')
	default:
		w.buf = append(w.buf, ',')
	}
	w.entries++
}

// close ends a batch's answer that has entries.
func (w *answerWriter) close() {
	if w.batch && w.entries > 0 {
		w.write([]byte{']'})
	}
}

// answer writes one call's answer with its id.
func (w *answerWriter) answer(id json.RawMessage, r *jsonrpc.Response) {
	if w.err != nil {
		return
	}
	if w.send != nil && r.Err == nil && len(r.Result) >= w.sendAt {
		w.buf = jsonrpc.AppendResultHead(w.buf, id)
		w.flush()
		w.pass(r.Result)
		w.buf = append(w.buf, '}')
		return
	}
	w.buf = jsonrpc.AppendResponse(w.buf, id, r)
	w.sendIfFull()
}

func (w *answerWriter) sendIfFull() {
	if w.send != nil && len(w.buf) >= w.sendAt {
		w.flush()
	}
}

// flush sends what is held.
func (w *answerWriter) flush() {
	if len(w.buf) == 0 {
		return
	}
	w.pass(w.buf)
	w.buf = w.buf[:0]
}

func (w *answerWriter) pass(b []byte) {
	if w.err != nil {
		return
	}
	w.sent = true
	w.err = w.send(b)
}
