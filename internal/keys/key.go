package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Length is the number of hex characters in a key.
const Length = 32

// Key is one API key's settings. The secret itself is never kept.
type Key struct {
	// ID is safe to log: the first bytes of the key's hash.
	ID   string
	Name string
	Plan string
}

// Hash is a key's SHA-256.
type Hash [sha256.Size]byte

// HashOf hashes a key.
func HashOf(key string) Hash { return sha256.Sum256([]byte(key)) }

// IDOf is the loggable id of a key: 12 hex characters of its hash.
func IDOf(h Hash) string { return hex.EncodeToString(h[:6]) }

// ErrMalformed is a key that is not 32 lowercase hex characters.
var ErrMalformed = errors.New("a key is 32 lowercase hexadecimal characters")

// Valid reports whether s has a key's shape.
func Valid(s string) bool {
	if len(s) != Length {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return true
}

// Generate returns a new random key.
func Generate() (string, error) {
	var b [Length / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
