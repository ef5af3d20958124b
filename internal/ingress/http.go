package ingress

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Server is the HTTP side of nodegate.
type Server struct {
	Keys KeyLookup
	// Router chooses each request's network.
	Router   *Router
	Pipeline *pipeline.Pipeline
	Limits   Limits
	// WebSocket bounds /ws/v3/<key> connections. Their subscriptions are
	// served by each network's hub (pipeline.Network.Subs).
	WebSocket WSLimits
	// Metering, when set, spends each request's credits before its calls
	// run (refusing the whole request with 429) and counts usage.
	Metering Metering
	ready    atomic.Bool
	ws       wsRegistry
}

// Metering is the rate limits' hook (internal/ratelimit.Meter): Admit is
// called once per request with the parsed calls, before any is
// dispatched; Record after they are answered, with the number of batch
// entries that were not valid requests.
type Metering interface {
	Admit(ctx context.Context, key *keys.Key, n *pipeline.Network, calls []*pipeline.Call) *jsonrpc.Error
	Record(key *keys.Key, n *pipeline.Network, calls []*pipeline.Call, answers []*jsonrpc.Response, invalid int)
	// ChargeNotification spends a subscription notification's credits;
	// false means the daily credits are spent and the connection closes
	// with closeReason.
	ChargeNotification(ctx context.Context, key *keys.Key, n *pipeline.Network) (ok bool, closeReason string)
}

// SetReady marks the service ready (GET /health answers 200 from then on).
func (s *Server) SetReady(v bool) { s.ready.Store(v) }

// Handler is the HTTP handler for every path nodegate serves.
func (s *Server) Handler() http.Handler {
	s.Limits = s.Limits.withDefaults()
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
	network, routeErr := s.Router.Route(r.Host)
	if routeErr != nil {
		writeError(w, routeErr)
		return
	}
	key, bypass, authErr := authenticate(s.Keys, r, httpPrefix)
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
	info := pipeline.ClientInfo{Transport: "http", Origin: r.Header.Get("Origin"), UserAgent: r.Header.Get("User-Agent"), Remote: r.RemoteAddr, BypassAllowlists: bypass}
	out := outPool.Get().(*[]byte)
	defer recycle(&outPool, out)
	buf, lead, forwardedTo := s.serveBody(r.Context(), (*out)[:0], body, network, key, info, nil)
	*out = buf
	if forwardedTo != "" {
		w.Header().Set(ForwardedHeader, forwardedTo)
	}
	status := http.StatusOK
	if lead != nil {
		status = lead.HTTPStatus()
		for k, v := range lead.Header {
			w.Header()[k] = v
		}
	}
	w.Header()["Content-Type"] = jsonType
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(buf))} // large answers go out unchunked
	w.WriteHeader(status)
	_, _ = w.Write(buf)
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
	star     = []string{"*"}
	jsonType = []string{"application/json"}
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
// request, when failover forwarding did (SPEC.md, "Failover forwarding").
const ForwardedHeader = "X-Nodegate-Forwarded-To"
