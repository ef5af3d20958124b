package customer

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
)

// tokensData is the API tokens page: the live tokens, and a new token
// shown once.
type tokensData struct {
	Tokens []accounts.APIToken
	Token  string
	Max    int
}

// tokensPath is the API tokens page.
const tokensPath = Prefix + "/tokens"

func (h *Handler) tokensPage(w http.ResponseWriter, r *http.Request, v *visit) {
	ts, err := h.opts.Accounts.APITokens(r.Context(), v.sess.Account.ID)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	d := tokensData{Tokens: ts, Max: accounts.MaxAPITokens}
	p := pageOf(v, "API tokens", "tokens")
	switch q := r.URL.Query(); {
	case q.Get("made") != "":
		if f, ok := h.takeFlash(w, r, v, tokensPath); ok && f.Secret != "" {
			d.Token = f.Secret
			p.Notice = "Token made: copy it now, it is shown only once."
		} else {
			p.Notice = "The token was shown once, when it was made."
		}
	case q.Get("revoked") != "":
		p.Notice = "Token revoked: it works no more."
	}
	p.Data = d
	h.render(w, http.StatusOK, "tokens", p)
}

func (h *Handler) tokensFail(w http.ResponseWriter, r *http.Request, v *visit, err error) {
	ts, derr := h.opts.Accounts.APITokens(r.Context(), v.sess.Account.ID)
	if derr != nil {
		h.storeError(w, r, derr)
		return
	}
	p := pageOf(v, "API tokens", "tokens")
	p.Data = tokensData{Tokens: ts, Max: accounts.MaxAPITokens}
	h.fail(w, r, err, "tokens", p)
}

func (h *Handler) createToken(w http.ResponseWriter, r *http.Request, v *visit) {
	days, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("days")))
	if err != nil {
		h.tokensFail(w, r, v, &accounts.InputError{Msg: "expires: want a whole number of days"})
		return
	}
	token, _, err := h.opts.Accounts.CreateAPIToken(r.Context(), v.sess.Account.ID, v.sess.Role, r.PostFormValue("name"), r.PostFormValue("scope"), time.Duration(days)*24*time.Hour)
	if err != nil {
		h.tokensFail(w, r, v, err)
		return
	}
	if err := h.setFlash(w, r, v, tokensPath, flash{Secret: token}); err != nil {
		h.storeError(w, r, err)
		return
	}
	http.Redirect(w, r, tokensPath+"?made=1", http.StatusSeeOther)
}

func (h *Handler) revokeToken(w http.ResponseWriter, r *http.Request, v *visit) {
	if err := h.opts.Accounts.RevokeAPIToken(r.Context(), v.sess.Account.ID, r.PathValue("id")); err != nil {
		h.tokensFail(w, r, v, err)
		return
	}
	http.Redirect(w, r, tokensPath+"?revoked=1", http.StatusSeeOther)
}
