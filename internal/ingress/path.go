package ingress

import "strings"

// Path prefixes of the key-carrying endpoints (docs/spec.md, Endpoints).
const (
	httpPrefix = "/v3/"
	wsPrefix   = "/ws/v3/"
)

// keyFromPath returns the key segment of /v3/<key>. present is false when
// there is no key at all; a key with extra segments is returned whole so
// that it fails the lookup as an invalid key.
func keyFromPath(path, prefix string) (key string, present bool) {
	if !strings.HasPrefix(path, prefix) {
		return "", false
	}
	key = path[len(prefix):]
	return key, key != ""
}
