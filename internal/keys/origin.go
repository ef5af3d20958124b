package keys

import (
	"errors"
	"net"
	"strconv"
	"strings"
)

// origin is a parsed Origin header: scheme://host[:port], lowercased.
type origin struct{ scheme, host, port string }

// originPattern is an origin allowlist entry: [scheme://][*.]host[:port].
// Without a scheme any scheme matches, without a port any port; "*." admits
// every subdomain (one label or more) but not the bare domain.
type originPattern struct {
	scheme   string
	host     string // with wildcard: the suffix including its leading dot
	wildcard bool
	port     string
}

const maxOriginLen = 300

var errBadAddress = errors.New("not a 0x-prefixed 20-byte hex address")

func (p originPattern) matches(o origin) bool {
	if p.scheme != "" && p.scheme != o.scheme {
		return false
	}
	if p.port != "" && p.port != o.port {
		return false
	}
	if p.wildcard {
		return len(o.host) > len(p.host) && strings.HasSuffix(o.host, p.host)
	}
	return o.host == p.host
}

// parseOriginHeader reads the Origin header a browser sends. "null" and
// anything with a path or credentials is not an origin.
func parseOriginHeader(s string) (origin, bool) {
	if len(s) == 0 || len(s) > maxOriginLen {
		return origin{}, false
	}
	s = strings.ToLower(s)
	i := strings.Index(s, "://")
	if i <= 0 || !validScheme(s[:i]) {
		return origin{}, false
	}
	host, port, err := splitHostPort(s[i+3:])
	if err != nil || host == "" {
		return origin{}, false
	}
	return origin{scheme: s[:i], host: host, port: port}, true
}

// parseOriginPattern validates and parses an allowlist entry.
func parseOriginPattern(s string) (originPattern, error) {
	if s == "" || len(s) > maxOriginLen {
		return originPattern{}, errors.New("an origin is 1 to 300 characters")
	}
	s = strings.ToLower(s)
	var p originPattern
	rest := s
	if i := strings.Index(s, "://"); i >= 0 {
		if !validScheme(s[:i]) {
			return p, errors.New("bad scheme (want e.g. https://example.com)")
		}
		p.scheme, rest = s[:i], s[i+3:]
	}
	host, port, err := splitHostPort(rest)
	if err != nil {
		return p, err
	}
	p.port = port
	if strings.HasPrefix(host, "*.") {
		p.wildcard, host = true, host[1:]
		if err := validHostname(host[1:]); err != nil {
			return p, err
		}
	} else if net.ParseIP(host) == nil {
		if err := validHostname(host); err != nil {
			return p, err
		}
	}
	p.host = host
	return p, nil
}

// splitHostPort splits host[:port] where port is optional, refusing paths,
// queries, fragments, user info and spaces.
func splitHostPort(s string) (host, port string, err error) {
	if strings.ContainsAny(s, "/?#@ \t\\") {
		return "", "", errors.New("an origin has no path, query, user or spaces (want scheme://host[:port])")
	}
	host = s
	if h, p, splitErr := net.SplitHostPort(s); splitErr == nil {
		n, convErr := strconv.Atoi(p)
		if convErr != nil || n < 1 || n > 65535 {
			return "", "", errors.New("bad port")
		}
		host, port = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	if host == "" {
		return "", "", errors.New("an origin needs a host")
	}
	return host, port, nil
}

func validScheme(s string) bool {
	if s == "" || len(s) > 32 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// validHostname accepts DNS names: dot-separated labels of letters, digits
// and inner hyphens.
func validHostname(h string) error {
	if h == "" || len(h) > 253 {
		return errors.New("bad host name")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("bad host name " + strconv.Quote(h))
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
				return errors.New("bad host name " + strconv.Quote(h) + " (a wildcard is allowed only as a leading \"*.\")")
			}
		}
	}
	return nil
}
