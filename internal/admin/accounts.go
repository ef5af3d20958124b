package admin

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// RegisterAccounts adds the customer account routes (docs/dashboard.md):
//
//	GET  /admin/accounts                    list
//	GET  /admin/accounts/{id}               show (id or email), with its keys and requests
//	POST /admin/accounts/{id}/disable       disable (its keys are refused within key_refresh)
//	POST /admin/accounts/{id}/enable        enable
//	POST /admin/accounts/{id}/plan          {"plan": "team"}: set the plan of the account and its keys
//	POST /admin/accounts/{id}/unlock        lift the account's sign-in limits now
//	POST /admin/accounts/{id}/reset-password a one-time password reset link (mailed with SMTP)
//	POST /admin/invites                     {"email": "…"}: a one-time sign-up link (mailed with SMTP)
//	GET  /admin/plan-requests               requests for the custom tier (?status=open|granted|declined)
//	POST /admin/plan-requests/{id}/grant    grant (the account moves to the plan)
//	POST /admin/plan-requests/{id}/decline  decline
func RegisterAccounts(s *Server, a *accounts.Service) {
	h := accountsAPI{a: a}
	s.HandleFunc("GET /admin/accounts", h.list)
	s.HandleFunc("GET /admin/accounts/{id}", h.show)
	s.HandleFunc("POST /admin/accounts/{id}/disable", h.status(accounts.StatusDisabled))
	s.HandleFunc("POST /admin/accounts/{id}/enable", h.status(accounts.StatusActive))
	s.HandleFunc("POST /admin/accounts/{id}/plan", h.setPlan)
	s.HandleFunc("POST /admin/accounts/{id}/unlock", h.unlock)
	s.HandleFunc("POST /admin/accounts/{id}/reset-password", h.resetPassword)
	s.HandleFunc("POST /admin/invites", h.invite)
	s.HandleFunc("GET /admin/plan-requests", h.requests)
	s.HandleFunc("POST /admin/plan-requests/{id}/grant", h.decide(true))
	s.HandleFunc("POST /admin/plan-requests/{id}/decline", h.decide(false))
}

type accountsAPI struct{ a *accounts.Service }

// AccountDetail is one account with its keys and plan requests.
type AccountDetail struct {
	accounts.Account
	Keys     []keys.Record          `json:"keys"`
	Requests []accounts.PlanRequest `json:"requests"`
}

func (h accountsAPI) list(w http.ResponseWriter, r *http.Request) {
	list, err := h.a.List(r.Context())
	if err != nil {
		failAccounts(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"accounts": list})
}

func (h accountsAPI) show(w http.ResponseWriter, r *http.Request) {
	a, err := h.a.Find(r.Context(), r.PathValue("id"))
	if err != nil {
		failAccounts(w, err)
		return
	}
	d := AccountDetail{Account: a}
	if d.Keys, err = h.a.Keys(r.Context(), a.ID); err == nil {
		d.Requests, err = h.a.AccountRequests(r.Context(), a.ID)
	}
	if err != nil {
		failAccounts(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, d)
}

func (h accountsAPI) status(st accounts.Status) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := h.a.Find(r.Context(), r.PathValue("id"))
		if err == nil {
			a, err = h.a.SetStatus(r.Context(), a.ID, st)
		}
		if err != nil {
			failAccounts(w, err)
			return
		}
		slog.Info("account "+string(st), "account", a.ID, "via", "admin api")
		WriteJSON(w, http.StatusOK, a)
	}
}

func (h accountsAPI) setPlan(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Plan string `json:"plan"`
	}
	if err := DecodeJSON(r, &body); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	a, err := h.a.Find(r.Context(), r.PathValue("id"))
	if err == nil {
		a, err = h.a.SetPlan(r.Context(), a.ID, body.Plan)
	}
	if err != nil {
		failAccounts(w, err)
		return
	}
	slog.Info("account plan set", "account", a.ID, "plan", a.Plan, "via", "admin api")
	WriteJSON(w, http.StatusOK, a)
}

func (h accountsAPI) invite(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Email string `json:"email"`
	}
	if err := DecodeJSON(r, &body); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	l, err := h.a.Invite(r.Context(), body.Email)
	if err != nil && l.URL == "" {
		failAccounts(w, err)
		return
	}
	out := map[string]any{"invite": l}
	if err != nil {
		out["warning"] = err.Error() // made, not mailed: the operator hands the link over
	}
	WriteJSON(w, http.StatusCreated, out)
}

func (h accountsAPI) unlock(w http.ResponseWriter, r *http.Request) {
	a, err := h.a.Find(r.Context(), r.PathValue("id"))
	if err == nil {
		a, err = h.a.Unlock(r.Context(), a.ID, "admin api")
	}
	if err != nil {
		failAccounts(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, a)
}

func (h accountsAPI) resetPassword(w http.ResponseWriter, r *http.Request) {
	a, err := h.a.Find(r.Context(), r.PathValue("id"))
	if err != nil {
		failAccounts(w, err)
		return
	}
	l, err := h.a.ResetLink(r.Context(), a.ID, "admin api")
	if err != nil && l.URL == "" {
		failAccounts(w, err)
		return
	}
	out := map[string]any{"reset": l}
	if err != nil {
		out["warning"] = err.Error() // made, not mailed: the operator hands the link over
	}
	WriteJSON(w, http.StatusOK, out)
}

func (h accountsAPI) requests(w http.ResponseWriter, r *http.Request) {
	list, err := h.a.Requests(r.Context(), r.URL.Query().Get("status"))
	if err != nil {
		failAccounts(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"requests": list})
}

func (h accountsAPI) decide(grant bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		req, err := h.a.Decide(r.Context(), r.PathValue("id"), grant)
		if err != nil {
			failAccounts(w, err)
			return
		}
		WriteJSON(w, http.StatusOK, req)
	}
}

// failAccounts maps an accounts error to its status, as fail does for keys.
func failAccounts(w http.ResponseWriter, err error) {
	switch {
	case accounts.IsNotFound(err):
		WriteError(w, http.StatusNotFound, "no such account or request")
	case accounts.IsInput(err):
		WriteError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, accounts.ErrBusy):
		WriteError(w, http.StatusTooManyRequests, err.Error())
	case errors.Is(err, accounts.ErrDisabled):
		WriteError(w, http.StatusConflict, err.Error())
	default:
		fail(w, err)
	}
}
