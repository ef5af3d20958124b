package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/ident"
)

// Status is a key's life-cycle state.
type Status string

// The statuses of a key. A revoked key stays revoked: revocation is final.
// A suspended key belongs to a disabled account; enabling the account makes
// it active again.
const (
	StatusActive    Status = "active"
	StatusRevoked   Status = "revoked"
	StatusSuspended Status = "suspended"
)

// Key is one usable key as the hot path sees it: its settings with the
// plan resolved and the allowlists compiled. The plain key is never kept.
// A Key is immutable once published in a Cache snapshot; a change builds a
// new Key.
type Key struct {
	// ID is safe to log: the first bytes of the key's hash.
	ID   string
	Name string
	// Account owns the key ('' for an operator's key): the daily credits
	// are counted for the account, across its keys.
	Account string
	// Plan is the key's plan as configured (rate, credits, failover).
	Plan Plan
	// Networks the key may use; empty means every network.
	Networks []string
	// Static keys come from the configuration (api_keys), not the store.
	Static    bool
	CreatedAt time.Time

	hash     Hash
	security compiledSecurity
	// rate and daily are the effective limits: the plan's, lowered by the
	// key's own overrides.
	rate  float64
	daily int64
	// ownRate and ownDaily: the key's own limit is the one in force (set,
	// and lower than the plan's), for refusals that name the limit.
	ownRate, ownDaily bool
	methodRates       []MethodRate
	// lastUsed is unix seconds, shared by every snapshot's copy of this key
	// so that a reload never loses a use.
	lastUsed *atomic.Int64
}

// RatePerSecond is the key's effective credit rate (0: unlimited).
func (k *Key) RatePerSecond() float64 { return k.rate }

// DailyCredits is the key's effective daily credit budget (0: unlimited).
func (k *Key) DailyCredits() int64 { return k.daily }

// Hash is a key's SHA-256.
type Hash [sha256.Size]byte

// HashOf hashes a key.
func HashOf(key string) Hash { return sha256.Sum256([]byte(key)) }

// IDOf is the loggable id of a key: 12 hex characters of its hash.
func IDOf(h Hash) string { return hex.EncodeToString(h[:6]) }

// ErrMalformed is a key that is not 32 lowercase hex characters.
var ErrMalformed = errors.New("a key is 32 lowercase hexadecimal characters")

// Generate returns a new random key (also used for secrets): 128 bits from
// the operating system's cryptographic source.
func Generate() (string, error) {
	var b [ident.KeyLength / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate key: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// touch records a use at unix second now; it writes only when the second
// changed, so concurrent requests mostly share a read-only cache line.
func (k *Key) touch(now int64) {
	if k.lastUsed != nil && k.lastUsed.Load() != now {
		k.lastUsed.Store(now)
	}
}

// redact keeps the first 4 characters of a secret, for error messages.
func redact(k string) string {
	if len(k) > 4 {
		return k[:4] + "…"
	}
	return k
}
