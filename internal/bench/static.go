package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

const word = `"0x000000000000000000000000000000000000000000000000000000000000002a"`

// staticResults are the fixed answers of the static upstream, by method;
// the transactions, receipts and blocks are the static chain's
// (staticchain.go), answered by what each call names.
var staticResults = map[string]jsonrpc.Response{
	"eth_call":         {Result: []byte(word)},
	"eth_getStorageAt": {Result: []byte(word)},
	"eth_estimateGas":  {Result: []byte(`"0x5208"`)},
	"eth_blockNumber":  {Result: []byte(fmt.Sprintf(`"0x%x"`, StaticHead))},
	"eth_chainId":      {Result: []byte(fmt.Sprintf(`"0x%x"`, staticChainID))},
	"net_version":      {Result: []byte(fmt.Sprint(staticChainID))},
}

// StaticCounts are what the static upstream has served: HTTP requests and
// the calls in them (a batch counts its calls), for upstream-calls-per-client-call
// figures (GET /stats).
var staticRequests, staticCalls atomic.Int64

// StaticMaxBody bounds a request body the static upstream reads.
const StaticMaxBody = 16 << 20

// StaticHandler answers JSON-RPC with fixed results, echoing each
// request's id; batches get one answer per call. Unknown methods get
// -32601, so that a mix error shows up as errors, not as silent success.
func StaticHandler() http.Handler {
	return http.HandlerFunc(serveStatic)
}

var staticBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8192); return &b }}

func serveStatic(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/stats" {
		w.Header()["Content-Type"] = jsonType
		fmt.Fprintf(w, `{"requests":%d,"calls":%d}`+"\n", staticRequests.Load(), staticCalls.Load())
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	bp := staticBufs.Get().(*[]byte)
	defer staticBufs.Put(bp)
	body, err := readAll(io.LimitReader(r.Body, StaticMaxBody+1), (*bp)[:0])
	if err != nil || len(body) > StaticMaxBody {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	*bp = body[:0]
	op := staticBufs.Get().(*[]byte)
	defer staticBufs.Put(op)
	out := AnswerStatic((*op)[:0], body)
	*op = out[:0]
	w.Header()["Content-Type"] = jsonType
	_, _ = w.Write(out)
}

// AnswerStatic appends the answer to body to buf.
func AnswerStatic(buf, body []byte) []byte {
	msgs, batch, perr := jsonrpc.Parse(body, 100000)
	if perr != nil {
		return jsonrpc.AppendResponse(buf, jsonrpc.NullID(), jsonrpc.ErrorResponse(perr))
	}
	staticRequests.Add(1)
	staticCalls.Add(int64(len(msgs)))
	if batch {
		buf = append(buf, '[')
	}
	for i := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = jsonrpc.AppendResponse(buf, msgs[i].Req.ID, staticResponse(&msgs[i]))
	}
	if batch {
		buf = append(buf, ']')
	}
	return buf
}

func staticResponse(m *jsonrpc.Message) *jsonrpc.Response {
	if m.Err != nil {
		return jsonrpc.ErrorResponse(m.Err)
	}
	if r, ok := staticResults[m.Req.Method]; ok {
		return &r
	}
	if result, ok := staticChainAnswer(m.Req.Method, m.Req.Params); ok {
		return &jsonrpc.Response{Result: result}
	}
	return jsonrpc.ErrorResponse(jsonrpc.ErrMethodNotFound(m.Req.Method))
}

func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// Static is a running static upstream.
type Static struct {
	ln  net.Listener
	srv *http.Server
}

// StartStatic serves the static upstream on addr (port 0 picks one).
func StartStatic(addr string) (*Static, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Static{ln: ln, srv: &http.Server{Handler: StaticHandler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the static upstream's address.
func (s *Static) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the static upstream.
func (s *Static) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
