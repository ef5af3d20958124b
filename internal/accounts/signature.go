package accounts

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a webhook POST's signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>".
const SignatureHeader = "X-Nodegate-Signature"

// maxSignatureHeader bounds a signature header a receiver parses.
const maxSignatureHeader = 512

// Sign is the signature header's value of body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(signatureMAC(secret, ts, body))
}

func signatureMAC(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of VerifySignature.
var (
	ErrSignatureMalformed = errors.New("signature: malformed header")
	ErrSignatureStale     = errors.New("signature: timestamp outside the tolerance")
	ErrSignatureMismatch  = errors.New("signature: does not match the body")
)

// VerifySignature checks a signature header against body as a webhook
// receiver does: the timestamp within tolerance of now (a replayed POST
// is refused), and one v1 value equal to the HMAC (constant time).
func VerifySignature(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	if len(header) > maxSignatureHeader {
		return fmt.Errorf("%w: longer than %d bytes", ErrSignatureMalformed, maxSignatureHeader)
	}
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return fmt.Errorf("%w: %q is not key=value", ErrSignatureMalformed, part)
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != sha256.Size {
				return fmt.Errorf("%w: v1 is not a hex SHA-256", ErrSignatureMalformed)
			}
			sigs = append(sigs, b)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: want t=<unix seconds>,v1=<hex>", ErrSignatureMalformed)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrSignatureStale
	}
	want := signatureMAC(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrSignatureMismatch
}
