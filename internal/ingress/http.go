package ingress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Server is nodegate's client side: the HTTP and WebSocket endpoints of
// one listener (/v3/<key>, /ws/v3/<key>).
type Server struct {
	Keys KeyLookup
	// Router chooses each request's network.
	Router   *Router
	Pipeline *pipeline.Pipeline
	Limits   Limits
	// WebSocket bounds /ws/v3/<key> connections. Their subscriptions are
	// served by each network's hub (pipeline.Network.Subs).
	WebSocket WSLimits
	// Admission counts each key's use of its plan's per-key caps: calls
	// in flight, open WebSockets, live subscriptions. It is made once per
	// process and shared by every server (each listener's, each reload
	// generation's), so that a key's caps hold across them; nil: this
	// server counts on its own (Handler makes one).
	Admission *admission.Keys
	// Metering, when set, spends each request's credits before its calls
	// run (refusing the whole request with 429) and counts usage.
	Metering Metering
	// TrustedProxies are the hops whose X-Forwarded-For is believed for
	// a key's address allowlist (clientaddr.go); empty: none.
	TrustedProxies TrustedProxies
	ready          atomic.Bool
	ws             wsRegistry
}

// Metering is the rate limits' hook (RateMeter over internal/ratelimit.Meter): Admit is
// called once per request with the parsed calls and the number of batch
// entries that were not valid requests, before any call is dispatched; Record after they are answered, with the number of batch
// entries that were not valid requests.
type Metering interface {
	Admit(ctx context.Context, key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, invalid int) *jsonrpc.Error
	Record(key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, answers []*jsonrpc.Response, invalid int)
	// Notifications opens the account a connection's subscription
	// notifications are charged to (nil: none are); it reserves each one
	// before it is queued and counts it once written, without I/O.
	Notifications(ctx context.Context, key *keys.Key, n *pipeline.Network) *ratelimit.NoteAccount
}

// SetReady marks the service ready (GET /health answers 200 from then on).
func (s *Server) SetReady(v bool) { s.ready.Store(v) }

// Handler is the HTTP handler for every path nodegate serves.
func (s *Server) Handler() http.Handler {
	s.Limits = s.Limits.withDefaults()
	if s.Admission == nil {
		s.Admission = new(admission.Keys)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", s.health)
	mux.HandleFunc(httpPrefix, s.rpc)
	mux.HandleFunc("/v3", s.rpc) // no key: answered 401 below
	s.initWebSocket()
	mux.HandleFunc(wsPrefix, s.websocket)
	mux.HandleFunc("/ws/v3", s.websocket)
	return mux
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if !s.ready.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"status":"starting"}`)
		return
	}
	_, _ = io.WriteString(w, `{"status":"ok"}`)
}

var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Access-Control-Allow-Origin"] = star
	switch r.Method {
	case http.MethodPost:
	case http.MethodOptions:
		h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "POST, OPTIONS")
		writeError(w, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "method not allowed: use POST", Status: http.StatusMethodNotAllowed})
		return
	}
	path, version := apiVersion(r.URL.Path)
	network, routeErr := s.Router.Route(r.Host)
	if routeErr == nil && version != "" {
		network, routeErr = versionOf(network, version)
	}
	if routeErr != nil {
		writeError(w, routeErr)
		return
	}
	key, adm, authErr := s.authenticate(r, path, httpPrefix)
	if authErr != nil {
		writeError(w, authErr)
		return
	}
	bp := bodyPool.Get().(*[]byte)
	defer recycle(&bodyPool, bp)
	body, err := readLimited(r.Body, (*bp)[:0], s.Limits.MaxBodyBytes)
	*bp = body[:0]
	if err != nil {
		writeError(w, bodyError(err, s.Limits.MaxBodyBytes))
		return
	}
	info := pipeline.ClientInfo{Transport: "http", Origin: r.Header.Get("Origin"), UserAgent: r.Header.Get("User-Agent"), Remote: r.RemoteAddr, BypassAllowlists: adm.Bypass, Narrow: adm.Narrow}
	out := outPool.Get().(*[]byte)
	defer recycle(&outPool, out)
	aw := &answerWriter{buf: (*out)[:0], sendAt: streamAt}
	stream := &httpStream{w: w, rc: http.NewResponseController(w), timeout: s.Limits.WriteTimeout, aw: aw}
	aw.send = stream.send
	s.serveTo(r.Context(), aw, body, network, key, info, nil)
	*out = aw.buf
	if aw.sent {
		stream.finish()
		return
	}
	if aw.forwardedTo != "" {
		h.Set(ForwardedHeader, aw.forwardedTo)
	}
	if len(aw.buf) == 0 { // notifications only: nothing to answer
		w.WriteHeader(http.StatusNoContent)
		return
	}
	stream.header()
	h["Content-Length"] = []string{strconv.Itoa(len(aw.buf))}
	w.WriteHeader(stream.status())
	_, _ = w.Write(aw.buf)
}

// streamAt is how much of an answer is held before it is streamed: an
// answer smaller than this goes out whole, with a Content-Length; a larger
// one is sent in pieces as its calls finish (chunked).
const streamAt = 64 << 10

// writePiece bounds one write, so that its deadline measures a client's
// progress rather than the size of the answer.
const writePiece = 256 << 10

// httpStream sends an answer that is larger than streamAt as it is made.
// Every write has its own deadline (Limits.WriteTimeout): a client that
// does not read is disconnected instead of pinning the answer.
type httpStream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	aw      *answerWriter
	started bool
}

// status is the answer's HTTP status: its lead error's, or 200.
func (st *httpStream) status() int {
	if st.aw.lead != nil {
		return st.aw.lead.HTTPStatus()
	}
	return http.StatusOK
}

// header sets the headers that come from the lead error and the type.
func (st *httpStream) header() {
	h := st.w.Header()
	if st.aw.closeConn {
		h["Connection"] = connClose
	}
	if lead := st.aw.lead; lead != nil {
		for k, v := range lead.Header {
			h[k] = v
		}
	}
	h["Content-Type"] = jsonType
}

func (st *httpStream) send(b []byte) error {
	if !st.started {
		st.started = true
		st.header()
		// The partner that answered is known only at the end.
		st.w.Header()["Trailer"] = []string{ForwardedHeader}
		st.w.WriteHeader(st.status())
	}
	for len(b) > 0 {
		n := min(len(b), writePiece)
		if err := st.rc.SetWriteDeadline(time.Now().Add(st.timeout)); err != nil {
			return fmt.Errorf("set write deadline: %w", err)
		}
		if _, err := st.w.Write(b[:n]); err != nil {
			return fmt.Errorf("write answer: %w", err)
		}
		b = b[n:]
	}
	if err := st.rc.Flush(); err != nil {
		return fmt.Errorf("flush answer: %w", err)
	}
	return nil
}

// finish sends the rest of a streamed answer and its trailer, and lifts
// the deadline for the connection's next request.
func (st *httpStream) finish() {
	st.aw.flush()
	if st.aw.err != nil {
		return
	}
	if st.aw.forwardedTo != "" {
		st.w.Header().Set(ForwardedHeader, st.aw.forwardedTo)
	}
	if err := st.rc.SetWriteDeadline(time.Now().Add(st.timeout)); err != nil {
		return
	}
	_ = st.rc.Flush()
	_ = st.rc.SetWriteDeadline(time.Time{})
}

// maxPooledBuf bounds the buffers kept for reuse: a rare 5 MB body or a
// 10,000-log answer is left to the GC instead of being held for ever.
const maxPooledBuf = 64 << 10

// recycle returns a buffer to its pool, unless it grew too large.
func recycle(p *sync.Pool, b *[]byte) {
	if cap(*b) <= maxPooledBuf {
		*b = (*b)[:0]
		p.Put(b)
	}
}

var (
	star      = []string{"*"}
	jsonType  = []string{"application/json"}
	connClose = []string{"close"}
)

var outPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// writeError answers a whole request with one error and id null.
func writeError(w http.ResponseWriter, e *jsonrpc.Error) {
	for k, v := range e.Header {
		w.Header()[k] = v
	}
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(e.HTTPStatus())
	_, _ = w.Write(jsonrpc.AppendResponse(nil, jsonrpc.NullID(), jsonrpc.ErrorResponse(e)))
}

var errTooLarge = errors.New("body too large")

// readLimited reads the whole body into buf, refusing more than limit bytes.
func readLimited(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if int64(len(buf)) > limit {
			return buf, errTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(buf)) > limit {
				return buf, errTooLarge
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func bodyError(err error, limit int64) *jsonrpc.Error {
	if errors.Is(err, errTooLarge) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "request body too large (limit " + itoa(limit) + " bytes)", Status: http.StatusRequestEntityTooLarge}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "could not read request body: " + strings.TrimSpace(err.Error()), Status: http.StatusBadRequest}
}

// ForwardedHeader names the partner provider that answered a call of the
// request, when failover forwarding did (docs/spec.md, "Failover forwarding").
const ForwardedHeader = "X-Nodegate-Forwarded-To"
