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
// key in the path, then the key's request-level settings (secret, origin,
// user agent). bypass reports that a correct secret lifts the per-call
// allowlists too. The plain key never leaves this function: errors and
// logs name keys by id only.
func authenticate(lookup KeyLookup, r *http.Request, path, prefix string) (k *keys.Key, bypass bool, e *jsonrpc.Error) {
	plain, present := keyFromPath(path, prefix)
	if !present {
		return nil, false, jsonrpc.ErrUnauthorized(msgNoKey)
	}
	k, ok := lookup.Lookup(plain)
	if !ok {
		return nil, false, jsonrpc.ErrUnauthorized(msgUnknownKey)
	}
	bypass, e = admitKey(k, requestOf(r))
	if e != nil {
		return nil, false, e
	}
	return k, bypass, nil
}

// requestOf is what a key's request-level settings look at.
func requestOf(r *http.Request) keys.Request {
	return keys.Request{
		Authorization: r.Header.Get("Authorization"),
		Origin:        r.Header.Get("Origin"),
		UserAgent:     r.Header.Get("User-Agent"),
	}
}

// admitKey applies a key's request-level settings and turns a refusal into
// its answer: 401 for a wrong or missing secret, 403 for the allowlists.
func admitKey(k *keys.Key, req keys.Request) (bypass bool, e *jsonrpc.Error) {
	bypass, err := k.Admit(req)
	switch {
	case errors.Is(err, keys.ErrBadSecret):
		return false, jsonrpc.ErrUnauthorized("invalid API key or secret")
	case err != nil:
		return false, jsonrpc.ErrForbidden()
	}
	return bypass, nil
}
