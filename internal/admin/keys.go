package admin

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/logging"
)

// RegisterKeys adds the key management routes:
//
//	GET    /admin/keys              list
//	POST   /admin/keys              create (201, the key and secret shown once)
//	GET    /admin/keys/{id}         show
//	PATCH  /admin/keys/{id}         update
//	POST   /admin/keys/{id}/revoke  revoke (DELETE /admin/keys/{id} too)
//	GET    /admin/keys/{id}/usage   usage records (?days=N, default 7)
func RegisterKeys(s *Server, m *keys.Manager) {
	h := keysAPI{m: m}
	s.HandleFunc("GET /admin/keys", h.list)
	s.HandleFunc("POST /admin/keys", h.create)
	s.HandleFunc("GET /admin/keys/{id}", h.show)
	s.HandleFunc("PATCH /admin/keys/{id}", h.update)
	s.HandleFunc("POST /admin/keys/{id}/revoke", h.revoke)
	s.HandleFunc("DELETE /admin/keys/{id}", h.revoke)
	s.HandleFunc("GET /admin/keys/{id}/usage", h.usage)
}

type keysAPI struct{ m *keys.Manager }

func (h keysAPI) list(w http.ResponseWriter, r *http.Request) {
	recs, err := h.m.List(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	if recs == nil {
		recs = []keys.Record{}
	}
	WriteJSON(w, http.StatusOK, map[string]any{"keys": recs})
}

func (h keysAPI) create(w http.ResponseWriter, r *http.Request) {
	var p keys.CreateParams
	if err := DecodeJSON(r, &p); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	c, err := h.m.Create(r.Context(), p)
	if err != nil {
		fail(w, err)
		return
	}
	slog.Info("key created", "key_id", c.ID, "plan", c.Plan, "via", "admin api")
	WriteJSON(w, http.StatusCreated, c)
}

func (h keysAPI) show(w http.ResponseWriter, r *http.Request) {
	rec, err := h.m.Show(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	WriteJSON(w, http.StatusOK, rec)
}

func (h keysAPI) update(w http.ResponseWriter, r *http.Request) {
	var p keys.Patch
	if err := DecodeJSON(r, &p); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	u, err := h.m.Update(r.Context(), r.PathValue("id"), p)
	if err != nil {
		fail(w, err)
		return
	}
	slog.Info("key updated", "key_id", u.ID, "via", "admin api")
	WriteJSON(w, http.StatusOK, u)
}

func (h keysAPI) revoke(w http.ResponseWriter, r *http.Request) {
	rec, err := h.m.Revoke(r.Context(), r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	slog.Info("key revoked", "key_id", rec.ID, "via", "admin api")
	WriteJSON(w, http.StatusOK, rec)
}

// storeUnavailable is the whole message of a 503 for a store outage.
const storeUnavailable = "key store unavailable: try again in a moment (the server log says why)"

// fail maps a management error to its status: 404 unknown id, 400 refused
// input, 503 store trouble. A 503 says only that the store is unavailable:
// its error may quote the store's URL (hosts, user, password), so it goes
// to the server log alone, with URL passwords hidden.
func fail(w http.ResponseWriter, err error) {
	var ie *keys.InputError
	switch {
	case keys.IsNotFound(err):
		WriteError(w, http.StatusNotFound, err.Error())
	case errors.As(err, &ie):
		WriteError(w, http.StatusBadRequest, ie.Msg)
	default:
		slog.Error("admin: key store", "err", logging.RedactURLs(err.Error()))
		WriteError(w, http.StatusServiceUnavailable, storeUnavailable)
	}
}
