package keys

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/netip"
	"strings"
)

// compiledSecurity is Security prepared for the hot path: sets instead of
// lists, origins pre-parsed.
type compiledSecurity struct {
	secretHash     *Hash
	secretRequired bool
	secretBypass   bool
	methods        map[string]struct{}
	contracts      map[[20]byte]struct{}
	origins        []originPattern
	userAgents     []string
	// ips is nil without an address allowlist; jwt nil without public
	// keys (nor a token required): such a key pays nothing for either.
	ips []netip.Prefix
	jwt *jwtSet
}

func compileSecurity(s *Security) compiledSecurity {
	c := compiledSecurity{
		secretHash:     s.SecretHash,
		secretRequired: s.SecretRequired,
		secretBypass:   s.SecretBypassesAllowlists,
		userAgents:     s.UserAgents,
		ips:            compilePrefixes(s.IPs),
		jwt:            compileJWT(s),
	}
	if len(s.Methods) > 0 {
		c.methods = make(map[string]struct{}, len(s.Methods))
		for _, m := range s.Methods {
			c.methods[m] = struct{}{}
		}
	}
	if len(s.Contracts) > 0 {
		c.contracts = make(map[[20]byte]struct{}, len(s.Contracts))
		for _, a := range s.Contracts {
			// Entries were validated on the way in; a bad one simply never matches.
			if b, err := parseAddress(a); err == nil {
				c.contracts[b] = struct{}{}
			}
		}
	}
	for _, o := range s.Origins {
		if p, err := parseOriginPattern(o); err == nil {
			c.origins = append(c.origins, p)
		}
	}
	return c
}

// AllowsNetwork reports whether the key may use the named network. The
// network restriction is not an allowlist: a secret never bypasses it.
func (k *Key) AllowsNetwork(name string) bool {
	if len(k.Networks) == 0 {
		return true
	}
	for _, n := range k.Networks {
		if n == name {
			return true
		}
	}
	return false
}

// AllowsMethod reports whether the method allowlist admits the method.
func (k *Key) AllowsMethod(method string) bool {
	if k.security.methods == nil {
		return true
	}
	_, ok := k.security.methods[method]
	return ok
}

// RestrictsContracts reports whether the key has a contract allowlist, so
// that a caller decodes addresses only when they matter.
func (k *Key) RestrictsContracts() bool { return k.security.contracts != nil }

// AllowsContract reports whether the contract allowlist admits the address.
func (k *Key) AllowsContract(addr [20]byte) bool {
	if k.security.contracts == nil {
		return true
	}
	_, ok := k.security.contracts[addr]
	return ok
}

// allowsOrigin checks the Origin header against the origin allowlist. A
// request without an Origin is refused when the list is set: the list is
// how an operator pins browser use, and a missing header cannot prove it.
func (k *Key) allowsOrigin(origin string) bool {
	if len(k.security.origins) == 0 {
		return true
	}
	o, ok := parseOriginHeader(origin)
	if !ok {
		return false
	}
	for _, p := range k.security.origins {
		if p.matches(o) {
			return true
		}
	}
	return false
}

// allowsUserAgent checks the User-Agent header: any entry that is a
// substring of it admits the request.
func (k *Key) allowsUserAgent(ua string) bool {
	if len(k.security.userAgents) == 0 {
		return true
	}
	for _, e := range k.security.userAgents {
		if strings.Contains(ua, e) {
			return true
		}
	}
	return false
}

// secretMatches compares the SHA-256 of a presented secret with the stored
// one in constant time.
func (k *Key) secretMatches(secret string) bool {
	if k.security.secretHash == nil {
		return false
	}
	h := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(h[:], k.security.secretHash[:]) == 1
}

// parseAddress reads a 0x-prefixed 20-byte hex address (any case).
func parseAddress(s string) ([20]byte, error) {
	var out [20]byte
	if len(s) != 42 || (s[:2] != "0x" && s[:2] != "0X") {
		return out, errBadAddress
	}
	if _, err := hex.Decode(out[:], []byte(s[2:])); err != nil {
		return out, errBadAddress
	}
	return out, nil
}
