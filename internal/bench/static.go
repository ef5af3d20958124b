package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// staticTx is a realistic EIP-1559 transaction object of about 1 KB (an
// ERC-20 transfer-sized input plus padding as real calldata would carry).
var staticTx = `{"blockHash":"0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2","blockNumber":"0x5daf3b","from":"0xa7d9ddbe1f17865597fbd27ec712455208b6b76d","gas":"0xc350","gasPrice":"0x4a817c800","maxFeePerGas":"0x9502f9000","maxPriorityFeePerGas":"0x3b9aca00","hash":"0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b","input":"0xa9059cbb000000000000000000000000f02c1c8e6114b1dbe8937a39260b5b0a374432bb00000000000000000000000000000000000000000000000000000000000f42400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000","nonce":"0x15","to":"0xf02c1c8e6114b1dbe8937a39260b5b0a374432bb","transactionIndex":"0x41","value":"0x0","type":"0x2","accessList":[],"chainId":"0x1","v":"0x1","r":"0x2a378831cf81d99a3f06a18ae1b6ca366817ab4d88a70053c41d7a8f0368e031","s":"0x450d831a05b6e418724436c05c155e0a1b7b921015d0fbc2f667aed709ac4fb5","yParity":"0x1"}`

var staticReceipt = `{"blockHash":"0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2","blockNumber":"0x5daf3b","contractAddress":null,"cumulativeGasUsed":"0x33bc","effectiveGasPrice":"0x4a817c800","from":"0xa7d9ddbe1f17865597fbd27ec712455208b6b76d","gasUsed":"0x4dc","logs":[],"logsBloom":"0x` + strings.Repeat("0", 512) + `","status":"0x1","to":"0xf02c1c8e6114b1dbe8937a39260b5b0a374432bb","transactionHash":"0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b","transactionIndex":"0x41","type":"0x2"}`

const word = `"0x000000000000000000000000000000000000000000000000000000000000002a"`

// staticResults are the fixed answers of the static upstream, by method.
var staticResults = map[string]jsonrpc.Response{
	"eth_getTransactionByHash":                {Result: []byte(staticTx)},
	"eth_getTransactionByBlockHashAndIndex":   {Result: []byte(staticTx)},
	"eth_getTransactionByBlockNumberAndIndex": {Result: []byte(staticTx)},
	"eth_getTransactionReceipt":               {Result: []byte(staticReceipt)},
	"eth_call":                                {Result: []byte(word)},
	"eth_getStorageAt":                        {Result: []byte(word)},
	"eth_estimateGas":                         {Result: []byte(`"0x5208"`)},
	"eth_blockNumber":                         {Result: []byte(`"0x5daf3b"`)},
	"eth_chainId":                             {Result: []byte(`"0x539"`)},
	"net_version":                             {Result: []byte(`"1337"`)},
	// Every tag names the same block, the head, which is final: so that a
	// gateway can know what is final (the transaction above is in it).
	"eth_getBlockByNumber": {Result: []byte(staticBlock)},
}

// staticBlock is the head block (also the finalized one), without transactions.
const staticBlock = `{"number":"0x5daf3b","hash":"0x1d59ff54b1eb26b013ce3cb5fc9dab3705b415a67127a003c3e61eb445bb8df2","parentHash":"0x0000000000000000000000000000000000000000000000000000000000000001","gasLimit":"0x1c9c380","gasUsed":"0x5208","timestamp":"0x6553f100","baseFeePerGas":"0x7","transactions":[]}`

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
