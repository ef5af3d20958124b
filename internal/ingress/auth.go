package ingress

import (
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// KeyLookup finds a key by its plain text.
type KeyLookup interface {
	Lookup(key string) (*keys.Key, bool)
}

// authenticate decides the key of a request before its body is read.
func authenticate(lookup KeyLookup, path, prefix string) (*keys.Key, *jsonrpc.Error) {
	plain, present := keyFromPath(path, prefix)
	if !present {
		return nil, jsonrpc.ErrUnauthorized("project id required in the url")
	}
	k, ok := lookup.Lookup(plain)
	if !ok {
		return nil, jsonrpc.ErrUnauthorized("invalid project id")
	}
	return k, nil
}
