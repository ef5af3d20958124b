package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Server is the admin API's handler. Routes registered with Handle or
// HandleFunc all sit behind the bearer token.
type Server struct {
	mux *http.ServeMux
	// public serves the routes that need no token (HandlePublic).
	public    *http.ServeMux
	hasPublic bool
	tokenHash [sha256.Size]byte
	hasToken  bool
}

// New returns an admin server checking token; an empty token refuses
// every request.
func New(token string) *Server {
	s := &Server{mux: http.NewServeMux(), public: http.NewServeMux()}
	if token != "" {
		s.tokenHash, s.hasToken = sha256.Sum256([]byte(token)), true
	}
	return s
}

// Handle registers a route (Go ServeMux patterns, e.g. "GET /admin/x/{id}").
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// HandleFunc registers a route function.
func (s *Server) HandleFunc(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// HandlePublic registers a route served WITHOUT the token: only for what
// holds no data (the dashboard's page and assets).
func (s *Server) HandlePublic(pattern string, h http.Handler) {
	s.public.Handle(pattern, h)
	s.hasPublic = true
}

// maxAuthHeader bounds the Authorization header that is looked at.
const maxAuthHeader = 1024

// ServeHTTP checks the bearer token, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.hasPublic {
		if h, pattern := s.public.Handler(r); pattern != "" {
			h.ServeHTTP(w, r)
			return
		}
	}
	if !s.hasToken {
		WriteError(w, http.StatusUnauthorized, "the admin API is disabled: set admin.token in the config or $NODEGATE_ADMIN_TOKEN")
		return
	}
	if !s.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="nodegate admin"`)
		WriteError(w, http.StatusUnauthorized, "missing or wrong bearer token (Authorization: Bearer <admin token>)")
		return
	}
	s.mux.ServeHTTP(w, r)
}

// authorized compares hashes in constant time, so neither the token's
// length nor its prefix leaks through timing.
func (s *Server) authorized(h string) bool {
	const prefix = "bearer "
	if len(h) > maxAuthHeader || len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(h[len(prefix):])))
	return subtle.ConstantTimeCompare(got[:], s.tokenHash[:]) == 1
}

// WriteJSON answers v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		WriteError(w, http.StatusInternalServerError, "encode response: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store") // answers may carry a new key or secret
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// WriteError answers {"error": msg} with status.
func WriteError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, map[string]string{"error": msg})
}

// maxBody bounds an admin request body.
const maxBody = 64 << 10

// DecodeJSON reads a strict JSON body (unknown fields are errors) into v.
func DecodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody+1))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("request body: empty (want a JSON object)")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("request body: truncated JSON or over %d bytes", maxBody)
		}
		return fmt.Errorf("request body: %w", err)
	}
	if dec.More() {
		return errors.New("request body: one JSON object only")
	}
	return nil
}
