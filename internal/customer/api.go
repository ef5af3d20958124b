package customer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// APIPrefix is where the customers' JSON API is served (docs/dashboard.md).
// It takes a bearer API token only, never a cookie: no session, so no
// CSRF to guard against.
const APIPrefix = Prefix + "/api/v1"

// apiVisit is what an API request carries: the account its token acts
// for, the token, and the role its scope acts with.
type apiVisit struct {
	account accounts.Account
	token   accounts.APIToken
	role    accounts.Role
}

type apiVisitKey struct{}

// apiRoute is one route of the API and what it asks of its token.
type apiRoute struct {
	pattern string
	access  access
	serve   func(http.ResponseWriter, *http.Request, *apiVisit)
}

// apiTable lists every route of the API with its access: the same
// permissions as the pages' routes that do the same.
func (h *Handler) apiTable() []apiRoute {
	return []apiRoute{
		{"GET " + APIPrefix + "/keys", canRead, h.apiKeys},
		{"POST " + APIPrefix + "/keys", canManage, h.apiCreateKey},
		{"GET " + APIPrefix + "/keys/{id}", canRead, h.apiKey},
		{"PATCH " + APIPrefix + "/keys/{id}", canManage, h.apiUpdateKey},
		{"POST " + APIPrefix + "/keys/{id}/revoke", canManage, h.apiRevokeKey},
		{"GET " + APIPrefix + "/keys/{id}/usage", canRead, h.apiKeyUsage},
		{"GET " + APIPrefix + "/usage", canRead, h.apiUsage},
		{"GET " + APIPrefix + "/analytics", canRead, h.apiAnalytics},
		{"GET " + APIPrefix + "/keys/{id}/analytics", canRead, h.apiKeyAnalytics},
		{"GET " + APIPrefix + "/alerts", canRead, h.apiAlerts},
		{"PUT " + APIPrefix + "/alerts", canManage, h.apiSetAlerts},
	}
}

func (h *Handler) apiRoutes() *http.ServeMux {
	m := http.NewServeMux()
	for _, rt := range h.apiTable() {
		m.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			av := r.Context().Value(apiVisitKey{}).(*apiVisit)
			if p, ok := rt.access.perm(); ok && !av.role.May(p) {
				apiJSON(w, http.StatusForbidden, apiErr(fmt.Sprintf("this token's scope (%s) may not do this: make a manage token", av.token.Scope)))
				return
			}
			rt.serve(w, r, av)
		})
	}
	m.HandleFunc(APIPrefix+"/", func(w http.ResponseWriter, r *http.Request) {
		apiJSON(w, http.StatusNotFound, apiErr("no such API route (docs/dashboard.md lists them)"))
	})
	return m
}

// serveAPI answers an API request: the bearer token (cookies are never
// read), the per-account request cap, then the route.
func (h *Handler) serveAPI(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="nodegate"`)
		apiJSON(w, http.StatusUnauthorized, apiErr(accounts.ErrNoToken.Error()))
		return
	}
	a, t, err := h.opts.Accounts.AuthenticateAPIToken(r.Context(), strings.TrimSpace(token))
	if errors.Is(err, accounts.ErrNoToken) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="nodegate", error="invalid_token"`)
		apiJSON(w, http.StatusUnauthorized, apiErr(err.Error()))
		return
	} else if err != nil {
		h.apiStoreError(w, r, err)
		return
	}
	if !h.cap.allow(a.ID, true, h.now()) {
		w.Header().Set("Retry-After", "60")
		apiJSON(w, http.StatusTooManyRequests, apiErr("too many requests: wait a minute"))
		return
	}
	av := &apiVisit{account: a, token: t, role: t.Scope.Role()}
	ctx := accounts.WithActor(context.WithValue(r.Context(), apiVisitKey{}, av), "API token "+t.ID+" ("+t.Name+")")
	h.api.ServeHTTP(w, r.WithContext(ctx))
}

// apiJSON writes v as the answer.
func apiJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"the answer could not be encoded"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func apiErr(msg string) map[string]string { return map[string]string{"error": msg} }

// apiFail answers an error of accounts as the pages' forms do (the same
// status and message), in JSON.
func (h *Handler) apiFail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, ok := formError(err)
	if !ok {
		h.apiStoreError(w, r, err)
		return
	}
	apiJSON(w, status, apiErr(msg))
}

func (h *Handler) apiStoreError(w http.ResponseWriter, r *http.Request, err error) {
	logStoreError(r, err)
	apiJSON(w, http.StatusServiceUnavailable, apiErr("the service could not reach its store: try again in a moment"))
}

// decodeBody reads a JSON body into v: one object, no unknown field,
// within maxForm.
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return &accounts.InputError{Msg: fmt.Sprintf("body: larger than %d KiB", maxForm>>10)}
	} else if err != nil {
		return &accounts.InputError{Msg: "body: could not be read"}
	}
	return parseBody(b, v)
}

// parseBody decodes one JSON object with no unknown field and nothing
// after it.
func parseBody(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &accounts.InputError{Msg: "body: " + err.Error()}
	}
	if dec.More() {
		return &accounts.InputError{Msg: "body: one JSON object, nothing after it"}
	}
	return nil
}

func (h *Handler) apiKeys(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	recs, err := h.opts.Accounts.Keys(r.Context(), av.account.ID)
	if err != nil {
		h.apiStoreError(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"keys": recs})
}

// apiNewKey is what the API takes to make a key: what the keys page's
// form takes.
type apiNewKey struct {
	Name     string   `json:"name"`
	Networks []string `json:"networks"`
	Secret   bool     `json:"secret"`
}

func (h *Handler) apiCreateKey(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	var in apiNewKey
	err := decodeBody(r, &in)
	if err == nil {
		err = h.checkNetworks(r, in.Networks)
	}
	var c keys.Created
	if err == nil {
		c, err = h.opts.Accounts.CreateKey(r.Context(), av.account.ID, keys.CreateParams{Name: strings.TrimSpace(in.Name), Networks: in.Networks, Secret: in.Secret})
	}
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	apiJSON(w, http.StatusCreated, map[string]any{"key": c})
}

func (h *Handler) apiOwnedKey(w http.ResponseWriter, r *http.Request, av *apiVisit) (keys.Record, bool) {
	rec, err := h.opts.Accounts.Key(r.Context(), av.account.ID, r.PathValue("id"))
	if err != nil {
		h.apiFail(w, r, err)
		return rec, false
	}
	return rec, true
}

func (h *Handler) apiKey(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	if rec, ok := h.apiOwnedKey(w, r, av); ok {
		apiJSON(w, http.StatusOK, map[string]any{"key": rec})
	}
}

func (h *Handler) apiUpdateKey(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	var p keys.Patch
	err := decodeBody(r, &p)
	if err == nil && p.Networks != nil {
		err = h.checkNetworks(r, *p.Networks)
	}
	var u keys.Updated
	if err == nil {
		u, err = h.opts.Accounts.UpdateKey(r.Context(), av.account.ID, r.PathValue("id"), p)
	}
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"key": u})
}

func (h *Handler) apiRevokeKey(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	rec, err := h.opts.Accounts.RevokeKey(r.Context(), av.account.ID, r.PathValue("id"))
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"key": rec})
}

func (h *Handler) apiKeyUsage(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	u, err := h.opts.Accounts.Usage(r.Context(), av.account.ID, r.PathValue("id"))
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"usage": u})
}

func (h *Handler) apiUsage(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	u, err := h.opts.Accounts.Usage(r.Context(), av.account.ID, "")
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"usage": u})
}

func (h *Handler) apiAlerts(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	st, err := h.opts.Accounts.Alerts(r.Context(), av.account.ID)
	var ds []accounts.Delivery
	if err == nil {
		ds, err = h.opts.Accounts.Deliveries(r.Context(), av.account.ID)
	}
	if err != nil {
		h.apiStoreError(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"alerts": st, "deliveries": ds})
}

// apiAlertsPatch is what the API takes to change the alerts: the alerts
// page's fields.
type apiAlertsPatch struct {
	CustomPercent *int    `json:"custom_percent"`
	Mail          *bool   `json:"mail"`
	WebhookURL    *string `json:"webhook_url"`
	NewSecret     bool    `json:"new_secret"`
}

func (h *Handler) apiSetAlerts(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	var in apiAlertsPatch
	err := decodeBody(r, &in)
	var st accounts.AlertSettings
	var secret string
	if err == nil {
		st, secret, err = h.opts.Accounts.SetAlerts(r.Context(), av.account.ID, accounts.AlertsPatch{CustomPercent: in.CustomPercent, Mail: in.Mail, WebhookURL: in.WebhookURL, NewSecret: in.NewSecret})
	}
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	out := map[string]any{"alerts": st}
	if secret != "" {
		out["webhook_secret"] = secret // shown once
	}
	apiJSON(w, http.StatusOK, out)
}
