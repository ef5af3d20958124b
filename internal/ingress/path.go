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

// rpcVersionSegment precedes the JSON-RPC version in a versioned path.
const rpcVersionSegment = "/rpc/"

// apiVersion splits /v3/<key>/rpc/<version> into /v3/<key> and the
// version (e.g. "v0_8", "v" digits "_" digits): the path convention of
// Juno and Pathfinder for the JSON-RPC versions a node serves besides its
// default. Any other path is returned whole with version "" (a key with
// extra segments then fails the lookup as an invalid key).
func apiVersion(path string) (rest, version string) {
	i := strings.LastIndex(path, rpcVersionSegment)
	if i < 0 {
		return path, ""
	}
	v := path[i+len(rpcVersionSegment):]
	if !validVersion(v) {
		return path, ""
	}
	return path[:i], v
}

// validVersion: "v", digits, "_", digits, at most 16 bytes.
func validVersion(v string) bool {
	major, minor, ok := strings.Cut(strings.TrimPrefix(v, "v"), "_")
	return ok && len(v) <= 16 && strings.HasPrefix(v, "v") && allDigits(major) && allDigits(minor)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
