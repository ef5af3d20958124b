package ingress

import (
	"errors"
	"net/http"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// KeyLookup finds a key by its plain text.
type KeyLookup interface {
	Lookup(key string) (*keys.Key, bool)
}

// authenticate decides the key of a request before its body is read: the
// key in the path, then the key's request-level settings (secret, origin,
// user agent). bypass reports that a correct secret lifts the per-call
// allowlists too. The plain key never leaves this function: errors and
// logs name keys by id only.
func authenticate(lookup KeyLookup, r *http.Request, prefix string) (k *keys.Key, bypass bool, e *jsonrpc.Error) {
	plain, present := keyFromPath(r.URL.Path, prefix)
	if !present {
		return nil, false, jsonrpc.ErrUnauthorized("project id required in the url")
	}
	k, ok := lookup.Lookup(plain)
	if !ok {
		return nil, false, jsonrpc.ErrUnauthorized("invalid project id")
	}
	bypass, err := k.Admit(keys.Request{
		Authorization: r.Header.Get("Authorization"),
		Origin:        r.Header.Get("Origin"),
		UserAgent:     r.Header.Get("User-Agent"),
	})
	switch {
	case errors.Is(err, keys.ErrBadSecret):
		return nil, false, jsonrpc.ErrUnauthorized("invalid project id or project secret")
	case err != nil:
		return nil, false, jsonrpc.ErrForbidden()
	}
	return k, bypass, nil
}
