package keys

import (
	"fmt"
	"sync/atomic"
)

// Static is an in-memory key set, replaced whole on update (copy on write),
// so that lookups take no lock.
type Static struct {
	m atomic.Pointer[map[Hash]*Key]
}

// NewStatic builds a set from plain keys, all on the given plan.
func NewStatic(plan string, plain ...string) (*Static, error) {
	m := make(map[Hash]*Key, len(plain))
	for _, k := range plain {
		if !Valid(k) {
			return nil, fmt.Errorf("key %q: %w", redact(k), ErrMalformed)
		}
		h := HashOf(k)
		m[h] = &Key{ID: IDOf(h), Name: "static", Plan: plan}
	}
	s := &Static{}
	s.m.Store(&m)
	return s, nil
}

// Lookup finds a key by its plain text; it hashes first, so the comparison
// runs on hashes and leaks nothing about the secret's prefix.
func (s *Static) Lookup(key string) (*Key, bool) {
	if !Valid(key) {
		return nil, false
	}
	k, ok := (*s.m.Load())[HashOf(key)]
	return k, ok
}

// redact keeps the first 4 characters of a secret, for error messages.
func redact(k string) string {
	if len(k) > 4 {
		return k[:4] + "…"
	}
	return k
}

// Add accepts one more key on a plan.
func (s *Static) Add(plain, plan string) error {
	if !Valid(plain) {
		return fmt.Errorf("key %q: %w", redact(plain), ErrMalformed)
	}
	old := *s.m.Load()
	m := make(map[Hash]*Key, len(old)+1)
	for h, k := range old {
		m[h] = k
	}
	h := HashOf(plain)
	m[h] = &Key{ID: IDOf(h), Name: "static", Plan: plan}
	s.m.Store(&m)
	return nil
}
