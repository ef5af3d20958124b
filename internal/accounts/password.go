package accounts

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// The argon2id parameters of new hashes (RFC 9106's second recommended
// option scaled to OWASP's minimum: 19 MiB of memory, 2 passes, one lane).
// A stored hash carries its own parameters, so raising these later keeps
// old passwords working.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024 // KiB
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// Password rules: long enough to resist guessing through the sign-in
// limits, short enough that hashing it is bounded.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256
)

// hashSlots bounds the hashes computed at once (each takes argonMemory):
// a burst of sign-ins waits here instead of exhausting memory. At most
// MaxHashWaiting more wait for a slot; beyond that a hash is refused at
// once with ErrBusy (the pages answer 429), so that a flood cannot make a
// customer's sign-in wait for thousands of others.
var (
	hashSlots = make(chan struct{}, 2)
	hashQueue = make(chan struct{}, cap(hashSlots)+MaxHashWaiting)
)

// MaxHashWaiting bounds the password hashes waiting for a slot.
const MaxHashWaiting = 32

// checkPassword validates a new password, naming the field.
func checkPassword(field, p string) error {
	switch {
	case !utf8.ValidString(p):
		return inputf("%s: not valid UTF-8", field)
	case utf8.RuneCountInString(p) < MinPasswordLen:
		return inputf("%s: at least %d characters", field, MinPasswordLen)
	case len(p) > MaxPasswordLen:
		return inputf("%s: at most %d bytes", field, MaxPasswordLen)
	}
	return nil
}

// hashPassword returns the PHC string of p:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash> (unpadded base64).
func hashPassword(ctx context.Context, p string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	sum, err := derive(ctx, p, salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	if err != nil {
		return "", err
	}
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(sum)), nil
}

// verifyPassword reports whether p matches the PHC string stored.
func verifyPassword(ctx context.Context, stored, p string) (bool, error) {
	ph, err := parseHash(stored)
	if err != nil {
		return false, err
	}
	if len(p) > MaxPasswordLen {
		return false, nil
	}
	sum, err := derive(ctx, p, ph.salt, ph.time, ph.memory, ph.threads, uint32(len(ph.sum)))
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare(sum, ph.sum) == 1, nil
}

// dummyHash is verified against when no account has the email, so that
// the answer takes as long as for a wrong password.
var dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$2Lsm4N8ZoeXhBlDQYH3wS3Je3mMj/m8DpY8W4dTlVB0"

func derive(ctx context.Context, p string, salt []byte, t, m uint32, threads uint8, keyLen uint32) ([]byte, error) {
	select {
	case hashQueue <- struct{}{}:
	default:
		return nil, ErrBusy
	}
	defer func() { <-hashQueue }()
	select {
	case hashSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("password hash: %w", ctx.Err())
	}
	defer func() { <-hashSlots }()
	return argon2.IDKey([]byte(p), salt, t, m, threads, keyLen), nil
}

type phc struct {
	time, memory uint32
	threads      uint8
	salt, sum    []byte
}

// maxArgonMemory refuses a stored hash that would take more memory than
// any nodegate writes (a corrupt or planted row).
const maxArgonMemory = 1 << 20 // KiB: 1 GiB

// parseHash reads a PHC argon2id string.
func parseHash(s string) (phc, error) {
	var h phc
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return h, errors.New("password hash: not an argon2id PHC string")
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return h, errors.New("password hash: unsupported argon2 version")
	}
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.memory, &h.time, &threads); err != nil {
		return h, errors.New("password hash: bad parameters")
	}
	if h.memory == 0 || h.memory > maxArgonMemory || h.time == 0 || h.time > 16 || threads == 0 || threads > 16 {
		return h, errors.New("password hash: parameters out of range")
	}
	h.threads = uint8(threads)
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 {
		return h, errors.New("password hash: bad salt")
	}
	if h.sum, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.sum) < 16 || len(h.sum) > 64 {
		return h, errors.New("password hash: bad hash")
	}
	return h, nil
}
