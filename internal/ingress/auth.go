package ingress

import (
	"errors"
	"net/http"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// KeyLookup finds keys: by plain text for a request, by id for an open
// WebSocket that checks its key again for every message, and Changed for
// the connections to notice a revocation without waiting for a message.
type KeyLookup interface {
	Lookup(key string) (*keys.Key, bool)
	ByID(id string) (*keys.Key, bool)
	// Used records a use of a key found by id: a call over an open
	// WebSocket counts for the key's last_used_at as an HTTP request's
	// Lookup does.
	Used(k *keys.Key)
	// Changed returns a channel closed at the next change of the keys.
	Changed() <-chan struct{}
}

// The 401 answers' messages.
const (
	msgNoKey      = "API key required in the url"
	msgUnknownKey = "invalid API key"
)

// authenticate decides the key of a request before its body is read: the
// key in the path, then the key's request-level settings (address,
// secret or token, origin, user agent). The admission says whether a
// correct secret lifts the per-call allowlists and what a token narrows
// them to. The plain key never leaves this function: errors and logs name
// keys by id only.
func (s *Server) authenticate(r *http.Request, path, prefix string) (k *keys.Key, a keys.Admission, e *jsonrpc.Error) {
	plain, present := keyFromPath(path, prefix)
	if !present {
		return nil, a, jsonrpc.ErrUnauthorized(msgNoKey)
	}
	k, ok := s.Keys.Lookup(plain)
	if !ok {
		return nil, a, jsonrpc.ErrUnauthorized(msgUnknownKey)
	}
	a, e = admitKey(k, s.requestOf(r, k.RestrictsAddresses()))
	if e != nil {
		return nil, a, e
	}
	return k, a, nil
}

// requestOf is what a key's request-level settings look at; the client's
// address is decided only when withAddr (a key with an address allowlist,
// or a WebSocket whose key may get one while it is open).
func (s *Server) requestOf(r *http.Request, withAddr bool) keys.Request {
	req := keys.Request{
		Authorization: r.Header.Get("Authorization"),
		Origin:        r.Header.Get("Origin"),
		UserAgent:     r.Header.Get("User-Agent"),
	}
	if withAddr {
		req.Remote = s.TrustedProxies.ClientAddr(r)
	}
	return req
}

// admitKey applies a key's request-level settings and turns a refusal into
// its answer: 401 for a wrong or missing secret or token (the token's
// message says what was wrong), 403 for the allowlists.
func admitKey(k *keys.Key, req keys.Request) (keys.Admission, *jsonrpc.Error) {
	a, err := k.Admit(req)
	if err != nil {
		return a, refusalOf(err)
	}
	return a, nil
}

// refusalOf is the answer to a refusal of Admit (apart, so that an
// admitted request allocates nothing for the error it did not have).
func refusalOf(err error) *jsonrpc.Error {
	var te *keys.TokenError
	switch {
	case errors.Is(err, keys.ErrBadSecret):
		return jsonrpc.ErrUnauthorized("invalid API key or secret")
	case errors.As(err, &te):
		return jsonrpc.ErrUnauthorized(te.Msg)
	}
	return jsonrpc.ErrForbidden()
}
