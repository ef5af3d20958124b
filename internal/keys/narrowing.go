package keys

import (
	"errors"

	"github.com/nodegate/nodegate/internal/methods"
)

// Narrowing is what a verified token's allowlist claims (methods,
// addresses, origins) leave of its key's allowlists: a call must pass
// both, so a token can only narrow its key. A nil Narrowing, and a nil
// list in one, narrow nothing. It is immutable and shared by every
// request that carries the token.
type Narrowing struct {
	methods   map[string]struct{}
	contracts map[[20]byte]struct{}
	origins   []originPattern
	// originsSet: the token named origins (an empty list admits none).
	originsSet bool
}

// AllowsMethod reports whether the token admits the method.
func (n *Narrowing) AllowsMethod(m string) bool {
	if n == nil || n.methods == nil {
		return true
	}
	_, ok := n.methods[m]
	return ok
}

// RestrictsContracts reports whether the token names contract addresses.
func (n *Narrowing) RestrictsContracts() bool { return n != nil && n.contracts != nil }

// AllowsContract reports whether the token admits the contract address.
func (n *Narrowing) AllowsContract(a [20]byte) bool {
	if n == nil || n.contracts == nil {
		return true
	}
	_, ok := n.contracts[a]
	return ok
}

// allowsOrigin checks the Origin header against the token's origins.
func (n *Narrowing) allowsOrigin(origin string) bool {
	if n == nil || !n.originsSet {
		return true
	}
	o, ok := parseOriginHeader(origin)
	if !ok {
		return false
	}
	for _, p := range n.origins {
		if p.matches(o) {
			return true
		}
	}
	return false
}

// narrowingOf checks a token's allowlist claims as a key's lists are
// checked (at most MaxAllowlist entries, each valid); nil when it has none.
func narrowingOf(c *tokenClaims) (*Narrowing, error) {
	if c.Methods == nil && c.Addresses == nil && c.Origins == nil {
		return nil, nil
	}
	n := &Narrowing{}
	if c.Methods != nil {
		list, err := claimList("methods", *c.Methods, func(m string) error {
			if !methods.ValidName(m) {
				return errors.New("not a JSON-RPC method name")
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		n.methods = make(map[string]struct{}, len(list))
		for _, m := range list {
			n.methods[m] = struct{}{}
		}
	}
	if c.Addresses != nil {
		n.contracts = make(map[[20]byte]struct{}, len(*c.Addresses))
		if _, err := claimList("addresses", *c.Addresses, func(a string) error {
			b, err := parseAddress(a)
			n.contracts[b] = struct{}{}
			return err
		}); err != nil {
			return nil, err
		}
	}
	if c.Origins != nil {
		n.originsSet = true
		if _, err := claimList("origins", *c.Origins, func(o string) error {
			p, err := parseOriginPattern(o)
			n.origins = append(n.origins, p)
			return err
		}); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// claimList bounds and checks one allowlist claim.
func claimList(name string, list []string, check func(string) error) ([]string, error) {
	if len(list) > MaxAllowlist {
		return nil, tokenErrorf("JWT claim %s: at most %d entries, got %d", name, MaxAllowlist, len(list))
	}
	for _, e := range list {
		if err := check(e); err != nil {
			return nil, tokenErrorf("JWT claim %s: %q: %v", name, truncate(e, 64), err)
		}
	}
	return list, nil
}
