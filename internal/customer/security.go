package customer

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Cookie names. The session cookie holds the session's token (the store
// keeps its hash); the CSRF cookie the token of signed-out forms.
const (
	sessionCookie = "nodegate_session"
	csrfCookie    = "nodegate_csrf"
	cookiePath    = "/dashboard/"
)

// csp lets a page load nothing but its own stylesheet: no script at all,
// no frames, forms posting only to this origin.
const csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// secure sets the headers every dashboard answer carries.
func secure(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// Links with a one-time token must not leak through Referer to
	// another site (same-origin still sends Origin on forms).
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// setCookie writes an HttpOnly, SameSite=Lax cookie under /dashboard/,
// Secure when the request came over TLS; maxAge < 0 deletes it.
func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: cookiePath, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: r.TLS != nil || h.opts.SecureCookies}
	if maxAge < 0 {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(maxAge / time.Second)
	}
	http.SetCookie(w, c)
}

// sessionCSRF is the CSRF token of a signed-in browser: an HMAC of its
// session token, which only that browser (HttpOnly cookie) and the server
// can make.
func sessionCSRF(sessionToken string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("nodegate dashboard csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// anonCSRF returns the CSRF token of a signed-out browser (double submit:
// the form field must equal the cookie), making and setting one when the
// request has none.
func (h *Handler) anonCSRF(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 43 {
		return c.Value
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	v := base64.RawURLEncoding.EncodeToString(b[:])
	h.setCookie(w, r, csrfCookie, v, 24*time.Hour)
	return v
}

// sameOrigin refuses a state-changing request that a browser says came
// from elsewhere (Sec-Fetch-Site, Origin): a second line behind the
// token.
func sameOrigin(r *http.Request) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return false
	}
	// "null" is an origin a browser hides (a no-referrer page): the token
	// decides then.
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			return false
		}
	}
	return true
}

// tokenEqual compares tokens in constant time.
func tokenEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// clientIP is the client's address: the connection's, or behind a
// trusted proxy the one it names (Options.ClientAddr); sign-in limits and
// the page cap are keyed by it.
func (h *Handler) clientIP(r *http.Request) string {
	if h.opts.ClientAddr != nil {
		if a := h.opts.ClientAddr(r); a.IsValid() {
			return a.String()
		}
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}
