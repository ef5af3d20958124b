package starknet

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/stark-curve/fp"
	"github.com/nodegate/nodegate/internal/upstream"
)

// Felt is a Starknet field element: an integer below the prime
// P = 2^251 + 17·2^192 + 1. It is only ever made from input that is already
// below P: a value at or over P is an error, never reduced, because a
// reduced felt would be a different transaction field than the one sent.
type Felt struct{ e fp.Element }

// MaxFeltHexDigits is the most hex digits a felt may be written with
// (leading zeros included); P needs 63, 64 admits 32-byte zero-padded input.
const MaxFeltHexDigits = 64

// Errors of ParseFelt, classified with errors.Is.
var (
	ErrFeltSyntax   = errors.New("felt must be a string of 0x followed by 1 to 64 hex digits")
	ErrFeltTooLarge = errors.New("felt is not below the field prime 2^251+17*2^192+1")
)

// prime is P as 32 big-endian bytes, for the range check before any
// arithmetic type sees the value.
var prime = func() [32]byte {
	var b [32]byte
	fp.Modulus().FillBytes(b[:])
	return b
}()

// ParseFelt reads a felt written as 0x-prefixed hex (either case, leading
// zeros allowed).
func ParseFelt(s string) (Felt, error) {
	var f Felt
	if len(s) < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || len(s)-2 > MaxFeltHexDigits {
		return f, fmt.Errorf("%w: %q", ErrFeltSyntax, Clip(s))
	}
	var b [32]byte
	digits := s[2:]
	// Fill from the right: the last digit is the low nibble of b[31].
	for i := 0; i < len(digits); i++ {
		v, ok := upstream.HexDigit(digits[len(digits)-1-i])
		if !ok {
			return f, fmt.Errorf("%w: %q", ErrFeltSyntax, Clip(s))
		}
		b[31-i/2] |= v << (4 * (i % 2))
	}
	if !belowPrime(&b) {
		return f, fmt.Errorf("%w: %s", ErrFeltTooLarge, Clip(s))
	}
	if err := f.e.SetBytesCanonical(b[:]); err != nil {
		return f, fmt.Errorf("%w: %s", ErrFeltTooLarge, Clip(s)) // unreachable after belowPrime; kept as a guard
	}
	return f, nil
}

// MustFelt parses a constant; it panics on a programming error only.
func MustFelt(s string) Felt {
	f, err := ParseFelt(s)
	if err != nil {
		panic(err)
	}
	return f
}

// FeltFromUint64 makes a small felt.
func FeltFromUint64(v uint64) Felt {
	var f Felt
	f.e.SetUint64(v)
	return f
}

// FeltFromBytes makes a felt from at most 31 big-endian bytes (a short
// string such as a chain id), which is always below P.
func FeltFromBytes(b []byte) (Felt, error) {
	var f Felt
	if len(b) > 31 {
		return f, fmt.Errorf("%d bytes do not fit a short string felt (at most 31)", len(b))
	}
	var buf [32]byte
	copy(buf[32-len(b):], b)
	if err := f.e.SetBytesCanonical(buf[:]); err != nil {
		return f, fmt.Errorf("short string felt: %w", err)
	}
	return f, nil
}

// FeltFromBig makes a felt of a non-negative integer below the field prime.
func FeltFromBig(v *big.Int) (Felt, error) {
	var f Felt
	if v.Sign() < 0 || v.BitLen() > 256 {
		return f, fmt.Errorf("%s is not a felt", Clip(v.String()))
	}
	var buf [32]byte
	v.FillBytes(buf[:])
	if err := f.e.SetBytesCanonical(buf[:]); err != nil {
		return f, fmt.Errorf("%s is not below the field prime: %w", Clip(v.String()), err)
	}
	return f, nil
}

func belowPrime(b *[32]byte) bool {
	for i := range b {
		if b[i] != prime[i] {
			return b[i] < prime[i]
		}
	}
	return false // equal to P
}

// Clip bounds how much of a client's value goes back into an error message.
func Clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// String is the canonical form: 0x, lowercase, no leading zeros.
func (f Felt) String() string { return "0x" + f.e.Text(16) }

// AppendHex appends the canonical form to buf.
func (f Felt) AppendHex(buf []byte) []byte {
	b := f.e.Bytes()
	buf = append(buf, '0', 'x')
	i := 0
	for i < len(b) && b[i] == 0 {
		i++
	}
	if i == len(b) {
		return append(buf, '0')
	}
	const digits = "0123456789abcdef"
	if b[i] < 0x10 {
		buf = append(buf, digits[b[i]])
		i++
	}
	for ; i < len(b); i++ {
		buf = append(buf, digits[b[i]>>4], digits[b[i]&0xf])
	}
	return buf
}

// Bytes is the 32-byte big-endian value.
func (f Felt) Bytes() [32]byte { return f.e.Bytes() }

// Big is the value as a big.Int.
func (f Felt) Big() *big.Int { return f.e.BigInt(new(big.Int)) }

// Equal reports whether two felts hold the same value.
func (f Felt) Equal(g Felt) bool { return f.e.Equal(&g.e) }

// IsZero reports whether the felt is 0.
func (f Felt) IsZero() bool { return f.e.IsZero() }

// Uint64 returns the value when it fits 64 bits.
func (f Felt) Uint64() (uint64, bool) {
	if !f.e.IsUint64() {
		return 0, false
	}
	return f.e.Uint64(), true
}

// MarshalJSON writes the canonical hex string.
func (f Felt) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 68)
	buf = append(buf, '"')
	buf = f.AppendHex(buf)
	return append(buf, '"'), nil
}

// UnmarshalJSON accepts only a JSON string holding a valid felt.
func (f *Felt) UnmarshalJSON(raw []byte) error {
	if len(raw) == 0 || raw[0] != '"' {
		return fmt.Errorf("%w, got %s", ErrFeltSyntax, JSONKind(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("%w: %v", ErrFeltSyntax, err)
	}
	v, err := ParseFelt(s)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// JSONKind names the JSON type of a raw value, for error messages.
func JSONKind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	default:
		return "a number"
	}
}

// PlusOne is f + 1 (a nonce after f).
func (f Felt) PlusOne() Felt {
	one := FeltFromUint64(1)
	f.e.Add(&f.e, &one.e)
	return f
}
