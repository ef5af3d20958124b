package customer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// A flash carries what a POST made and must show once (a new key, a new
// secret) to the page its redirect opens (POST-redirect-GET: a reload
// never repeats the action). It lives in a cookie, so any replica can
// show it, sealed with AES-GCM under a key derived from the session's
// token (which the store never holds) and bound to the page it is for;
// the page that shows it deletes it, so a reload shows it no more.
const (
	flashCookie = "nodegate_flash"
	// flashTTL is how long a flash waits for its page.
	flashTTL = 5 * time.Minute
	// maxFlash bounds a flash cookie's value (a key and a secret fit many
	// times over).
	maxFlash = 2048
)

// flash is what one action shows once.
type flash struct {
	Key    string `json:"key,omitempty"`
	Secret string `json:"secret,omitempty"`
	// Link is a team invitation no mail server took.
	Link string `json:"link,omitempty"`
}

// flashAEAD is the cipher of a session's flashes.
func flashAEAD(sessionToken string) (cipher.AEAD, error) {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("nodegate dashboard flash"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("flash cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

// setFlash seals f for the page at target and sets it as a cookie.
func (h *Handler) setFlash(w http.ResponseWriter, r *http.Request, v *visit, target string, f flash) error {
	aead, err := flashAEAD(v.token)
	if err != nil {
		return err
	}
	plain, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("flash: %w", err)
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce)
	sealed := aead.Seal(nonce, nonce, plain, []byte(target))
	h.setCookie(w, r, flashCookie, base64.RawURLEncoding.EncodeToString(sealed), flashTTL)
	return nil
}

// takeFlash opens the flash for the page at target and deletes the
// cookie; ok is false when there is none for this page and session.
func (h *Handler) takeFlash(w http.ResponseWriter, r *http.Request, v *visit, target string) (flash, bool) {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return flash{}, false
	}
	h.setCookie(w, r, flashCookie, "", -1)
	return openFlash(v.token, target, c.Value)
}

// openFlash opens a sealed flash; anything that is not one sealed for
// this session and page is none.
func openFlash(sessionToken, target, value string) (flash, bool) {
	if len(value) > maxFlash {
		return flash{}, false
	}
	sealed, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return flash{}, false
	}
	aead, err := flashAEAD(sessionToken)
	if err != nil || len(sealed) < aead.NonceSize() {
		return flash{}, false
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(target))
	if err != nil {
		return flash{}, false
	}
	var f flash
	if json.Unmarshal(plain, &f) != nil {
		return flash{}, false
	}
	return f, true
}
