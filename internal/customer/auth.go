package customer

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/accounts"
)

// formError turns an error from accounts into the status and message the
// form shows; ok is false for store trouble, which storeError answers.
func formError(err error) (status int, msg string, ok bool) {
	var le *accounts.LimitedError
	var ie *accounts.InputError
	switch {
	case errors.As(err, &ie):
		return http.StatusBadRequest, ie.Msg, true
	case errors.As(err, &le):
		return http.StatusTooManyRequests, le.Error(), true
	case errors.Is(err, accounts.ErrBusy):
		return http.StatusTooManyRequests, err.Error(), true
	case errors.Is(err, accounts.ErrBadCredentials):
		return http.StatusUnauthorized, err.Error(), true
	case errors.Is(err, accounts.ErrDisabled):
		return http.StatusForbidden, err.Error(), true
	case accounts.IsNotFound(err):
		return http.StatusNotFound, "not found", true
	}
	if err = accounts.Input(err); errors.As(err, &ie) {
		return http.StatusBadRequest, ie.Msg, true
	}
	return 0, "", false
}

// authForm is the data of the sign-in, sign-up and password forms.
type authForm struct {
	Email  string
	Token  string
	Signup accounts.Signup
	Mail   bool
}

func (h *Handler) authData(email, token string) authForm {
	o := h.opts.Accounts.Options()
	return authForm{Email: email, Token: token, Signup: o.Signup, Mail: o.Mailer != nil}
}

// fail re-renders a form with the error, or answers store trouble.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error, name string, p page) {
	status, msg, ok := formError(err)
	if !ok {
		h.storeError(w, r, err)
		return
	}
	var le *accounts.LimitedError
	if errors.As(err, &le) {
		w.Header().Set("Retry-After", strconv.FormatInt(le.RetryAfterSeconds, 10))
	} else if errors.Is(err, accounts.ErrBusy) {
		w.Header().Set("Retry-After", "2")
	}
	p.Error = msg
	h.render(w, status, name, p)
}

// startSession sets the session cookie and goes to the keys page.
func (h *Handler) startSession(w http.ResponseWriter, r *http.Request, token string) {
	h.setCookie(w, r, sessionCookie, token, h.opts.SessionMax)
	h.setCookie(w, r, csrfCookie, "", -1)
	http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
}

func (h *Handler) signinPage(w http.ResponseWriter, r *http.Request, _ *visit) {
	v := visitOf(r)
	if v.sess != nil {
		http.Redirect(w, r, Prefix+"/keys", http.StatusSeeOther)
		return
	}
	p := pageOf(v, "Sign in", "signin")
	p.Data = h.authData("", "")
	if r.URL.Query().Get("changed") != "" {
		p.Notice = "Password changed: sign in with the new one."
	}
	h.render(w, http.StatusOK, "signin", p)
}

func (h *Handler) signin(w http.ResponseWriter, r *http.Request, _ *visit) {
	v := visitOf(r)
	email := r.PostFormValue("email")
	token, _, err := h.opts.Accounts.SignIn(r.Context(), email, r.PostFormValue("password"), h.clientIP(r))
	if err != nil {
		p := pageOf(v, "Sign in", "signin")
		p.Data = h.authData(email, "")
		h.fail(w, r, err, "signin", p)
		return
	}
	h.startSession(w, r, token)
}

func (h *Handler) signupPage(w http.ResponseWriter, r *http.Request, _ *visit) {
	v := visitOf(r)
	p := pageOf(v, "Sign up", "signup")
	invite := r.URL.Query().Get("token")
	email := ""
	if invite != "" {
		e, err := h.opts.Accounts.InvitedEmail(r.Context(), invite)
		if err != nil {
			p.Data = h.authData("", "")
			h.fail(w, r, err, "signup", p)
			return
		}
		email = e
	}
	p.Data = h.authData(email, invite)
	if r.URL.Query().Get("sent") != "" {
		p.Notice = "A link to finish making your account is on its way to this email: open it to choose your password."
	}
	h.render(w, http.StatusOK, "signup", p)
}

func (h *Handler) signup(w http.ResponseWriter, r *http.Request, _ *visit) {
	v := visitOf(r)
	email, invite := r.PostFormValue("email"), r.PostFormValue("token")
	if invite == "" && h.opts.Accounts.SignupByMail() {
		// The same answer whatever the email: the mail says the rest.
		p := pageOf(v, "Sign up", "signup")
		p.Data = h.authData(email, "")
		if err := h.opts.Accounts.RequestSignup(r.Context(), email, h.clientIP(r)); err != nil {
			h.fail(w, r, err, "signup", p)
			return
		}
		http.Redirect(w, r, Prefix+"/signup?sent=1", http.StatusSeeOther)
		return
	}
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("password2") {
		p := pageOf(v, "Sign up", "signup")
		p.Data = h.authData(email, invite)
		p.Error = "password: the two passwords differ"
		h.render(w, http.StatusBadRequest, "signup", p)
		return
	}
	token, _, err := h.opts.Accounts.SignUp(r.Context(), email, pw, invite)
	if err != nil {
		p := pageOf(v, "Sign up", "signup")
		p.Data = h.authData(email, invite)
		h.fail(w, r, err, "signup", p)
		return
	}
	h.startSession(w, r, token)
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request, _ *visit) {
	v := visitOf(r)
	if err := h.opts.Accounts.SignOut(r.Context(), v.token); err != nil {
		h.storeError(w, r, err)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
}

func (h *Handler) forgotPage(w http.ResponseWriter, r *http.Request, _ *visit) {
	p := pageOf(visitOf(r), "Forgot password", "signin")
	p.Data = h.authData("", "")
	if r.URL.Query().Get("sent") != "" {
		p.Notice = "If an account has this email, a link to reset its password is on its way."
	}
	h.render(w, http.StatusOK, "forgot", p)
}

func (h *Handler) forgot(w http.ResponseWriter, r *http.Request, _ *visit) {
	p := pageOf(visitOf(r), "Forgot password", "signin")
	email := r.PostFormValue("email")
	p.Data = h.authData(email, "")
	if err := h.opts.Accounts.RequestReset(r.Context(), email, h.clientIP(r)); err != nil {
		h.fail(w, r, err, "forgot", p)
		return
	}
	http.Redirect(w, r, Prefix+"/forgot?sent=1", http.StatusSeeOther)
}

func (h *Handler) resetPage(w http.ResponseWriter, r *http.Request, _ *visit) {
	p := pageOf(visitOf(r), "Reset password", "signin")
	token := r.URL.Query().Get("token")
	email, err := h.opts.Accounts.ResetEmail(r.Context(), token)
	p.Data = h.authData(email, token)
	if err != nil {
		h.fail(w, r, err, "reset", p)
		return
	}
	h.render(w, http.StatusOK, "reset", p)
}

func (h *Handler) reset(w http.ResponseWriter, r *http.Request, _ *visit) {
	p := pageOf(visitOf(r), "Reset password", "signin")
	token := r.PostFormValue("token")
	p.Data = h.authData("", token)
	pw := r.PostFormValue("password")
	if pw != r.PostFormValue("password2") {
		p.Error = "new password: the two passwords differ"
		h.render(w, http.StatusBadRequest, "reset", p)
		return
	}
	if err := h.opts.Accounts.ResetPassword(r.Context(), token, pw); err != nil {
		h.fail(w, r, err, "reset", p)
		return
	}
	http.Redirect(w, r, Prefix+"/signin?changed=1", http.StatusSeeOther)
}

func (h *Handler) passwordPage(w http.ResponseWriter, r *http.Request, v *visit) {
	h.render(w, http.StatusOK, "password", pageOf(v, "Change password", "password"))
}

func (h *Handler) password(w http.ResponseWriter, r *http.Request, v *visit) {
	p := pageOf(v, "Change password", "password")
	next := r.PostFormValue("new")
	if next != r.PostFormValue("new2") {
		p.Error = "new password: the two passwords differ"
		h.render(w, http.StatusBadRequest, "password", p)
		return
	}
	if err := h.opts.Accounts.ChangePassword(r.Context(), v.sess.Login.ID, r.PostFormValue("current"), next); err != nil {
		h.fail(w, r, err, "password", p)
		return
	}
	h.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Prefix+"/signin?changed=1", http.StatusSeeOther)
}
