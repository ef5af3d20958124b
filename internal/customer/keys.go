package customer

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// keysData is the keys page: the account's keys, the networks a new key
// may be limited to, and the plan's cap.
type keysData struct {
	Keys     []keys.Record
	Networks []string
	Active   int
	Max      int
	Name     string
}

func (h *Handler) networkNames(r *http.Request) []string {
	var out []string
	for _, n := range h.opts.Networks(r) {
		out = append(out, n.Name)
	}
	return out
}

func (h *Handler) keysData(r *http.Request, v *visit) (keysData, error) {
	recs, err := h.opts.Accounts.Keys(r.Context(), v.sess.Account.ID)
	if err != nil {
		return keysData{}, err
	}
	d := keysData{Keys: recs, Networks: h.networkNames(r), Max: h.opts.Accounts.MaxKeys(v.sess.Account.Plan)}
	for _, k := range recs {
		if k.Status != keys.StatusRevoked {
			d.Active++
		}
	}
	return d, nil
}

func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request, v *visit) {
	d, err := h.keysData(r, v)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	p := pageOf(v, "Keys", "keys")
	p.Data = d
	h.render(w, http.StatusOK, "keys", p)
}

// keyURL is one network's endpoints for a new key.
type keyURL struct {
	Network string
	HTTP    string
	WS      string
}

// createdData is the page that shows a new key and its secret, once.
type createdData struct {
	Key    keys.Created
	URLs   []keyURL
	Curl   string
	Secret bool
}

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, v *visit) {
	nets := r.PostForm["network"]
	params := keys.CreateParams{Name: strings.TrimSpace(r.PostFormValue("name")), Networks: nets, Secret: r.PostFormValue("secret") != ""}
	err := h.checkNetworks(r, nets)
	var c keys.Created
	if err == nil {
		c, err = h.opts.Accounts.CreateKey(r.Context(), v.sess.Account.ID, params)
	}
	if err != nil {
		d, derr := h.keysData(r, v)
		if derr != nil {
			h.storeError(w, r, derr)
			return
		}
		d.Name = params.Name
		p := pageOf(v, "Keys", "keys")
		p.Data = d
		h.fail(w, r, err, "keys", p)
		return
	}
	// POST-redirect-GET: the plain key and secret reach the page once,
	// sealed in a flash; a reload of that page makes no second key.
	if err := h.setFlash(w, r, v, createdPath(c.ID), flash{Key: c.Key, Secret: c.Secret}); err != nil {
		h.storeError(w, r, err)
		return
	}
	http.Redirect(w, r, createdPath(c.ID), http.StatusSeeOther)
}

// createdPath is the page that shows a new key once.
func createdPath(id string) string { return Prefix + "/keys/" + id + "/created" }

// createdPage shows a new key and its secret from the flash its creation
// left; without it (a reload, another browser) it goes to the key's page.
func (h *Handler) createdPage(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	f, ok := h.takeFlash(w, r, v, createdPath(rec.ID))
	if !ok {
		http.Redirect(w, r, Prefix+"/keys/"+rec.ID+"?shown=1", http.StatusSeeOther)
		return
	}
	d := createdData{Key: keys.Created{Record: rec, Key: f.Key, Secret: f.Secret}, Secret: f.Secret != ""}
	for _, n := range h.opts.Networks(r) {
		if len(rec.Networks) > 0 && !contains(rec.Networks, n.Name) {
			continue
		}
		d.URLs = append(d.URLs, keyURL{Network: n.Name, HTTP: n.HTTP + "/v3/" + f.Key, WS: n.WS + "/ws/v3/" + f.Key})
		if d.Curl == "" {
			d.Curl = curlLine(n, f.Key, f.Secret)
		}
	}
	p := pageOf(v, "New key", "keys")
	p.Data = d
	h.render(w, http.StatusOK, "created", p)
}

// curlLine is a command that works as shown: the network's block number.
func curlLine(n NetworkURL, key, secret string) string {
	auth := ""
	if secret != "" {
		auth = " --user :" + secret
	}
	insecure := ""
	if strings.HasPrefix(n.HTTP, "https://127.0.0.1") || strings.HasPrefix(n.HTTP, "https://localhost") {
		insecure = " -k"
	}
	return "curl -s" + insecure + auth + " -H 'Content-Type: application/json' --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + n.HeadMethod + "\",\"params\":[]}' " + n.HTTP + "/v3/" + key
}

// checkNetworks refuses a network this service does not serve, as the
// CLI does.
func (h *Handler) checkNetworks(r *http.Request, list []string) error {
	served := h.networkNames(r)
	for _, n := range list {
		if !contains(served, n) {
			return &accounts.InputError{Msg: fmt.Sprintf("network: unknown network %q: this service serves %s", n, strings.Join(served, ", "))}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// keyData is one key's settings page.
type keyData struct {
	Key      keys.Record
	Networks []string
	// Secret is a new secret, shown once after "make a new secret".
	Secret string
}

func (h *Handler) ownedKey(w http.ResponseWriter, r *http.Request, v *visit) (keys.Record, bool) {
	rec, err := h.opts.Accounts.Key(r.Context(), v.sess.Account.ID, r.PathValue("id"))
	if accounts.IsNotFound(err) {
		h.message(w, r, v, http.StatusNotFound, "Not found", "This account has no such key.")
		return rec, false
	} else if err != nil {
		h.storeError(w, r, err)
		return rec, false
	}
	return rec, true
}

func (h *Handler) keyPage(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	p := pageOf(v, "Key "+rec.Name, "keys")
	d := keyData{Key: rec, Networks: h.networkNames(r)}
	q := r.URL.Query()
	switch {
	case q.Get("secret") != "":
		if f, ok := h.takeFlash(w, r, v, keyPath(rec.ID)); ok && f.Secret != "" {
			d.Secret = f.Secret
			p.Notice = "New secret made: copy it now, it is shown only once."
		} else {
			p.Notice = "A new secret was made and shown once: make another if it was not copied."
		}
	case q.Get("shown") != "":
		p.Notice = "The key was shown once, when it was made: the service keeps only its hash."
	case q.Get("revoked") != "":
		p.Notice = "Revoked: every replica refuses this key within its key refresh interval."
	case q.Get("saved") != "":
		p.Notice = "Saved. Every replica applies it within its key refresh interval."
	}
	p.Data = d
	h.render(w, http.StatusOK, "key", p)
}

// keyPath is one key's settings page.
func keyPath(id string) string { return Prefix + "/keys/" + id }

// splitList reads a textarea of entries: one per line, or separated by
// commas when commas may not appear in an entry.
func splitList(s string, commas bool) []string {
	sep := func(r rune) bool { return r == '\n' || r == '\r' || (commas && r == ',') }
	out := []string{}
	for _, f := range strings.FieldsFunc(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// patchOf turns a settings form into a key patch; each form of the key
// page sends one action.
func patchOf(r *http.Request) (keys.Patch, bool) {
	var p keys.Patch
	yes := func(name string) *bool { b := r.PostFormValue(name) != ""; return &b }
	switch r.PostFormValue("action") {
	case "name":
		n := strings.TrimSpace(r.PostFormValue("name"))
		p.Name = &n
	case "networks":
		nets := append([]string{}, r.PostForm["network"]...)
		p.Networks = &nets
	case "new-secret":
		p.NewSecret = true
	case "clear-secret":
		p.ClearSecret = true
	case "secret-settings":
		p.SecretRequired, p.SecretBypassesAllowlists = yes("required"), yes("bypass")
	case "allowlists":
		m, c, o, u := splitList(r.PostFormValue("methods"), true), splitList(r.PostFormValue("contracts"), true),
			splitList(r.PostFormValue("origins"), true), splitList(r.PostFormValue("user_agents"), false)
		p.AllowedMethods, p.AllowedContracts, p.AllowedOrigins, p.AllowedUserAgents = &m, &c, &o, &u
	default:
		return p, false
	}
	return p, true
}

func (h *Handler) updateKey(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	patch, ok := patchOf(r)
	var err error
	if !ok {
		patch, ok, err = securityPatchOf(r, rec)
	}
	if !ok {
		h.message(w, r, v, http.StatusBadRequest, "Refused", "action: unknown form action")
		return
	}
	var u keys.Updated
	if err == nil {
		err = h.checkNetworks(r, r.PostForm["network"])
	}
	if err == nil {
		u, err = h.opts.Accounts.UpdateKey(r.Context(), v.sess.Account.ID, rec.ID, patch)
	}
	if err != nil {
		p := pageOf(v, "Key "+rec.Name, "keys")
		p.Data = keyData{Key: rec, Networks: h.networkNames(r)}
		h.fail(w, r, err, "key", p)
		return
	}
	if u.Secret != "" {
		if err := h.setFlash(w, r, v, keyPath(rec.ID), flash{Secret: u.Secret}); err != nil {
			h.storeError(w, r, err)
			return
		}
		http.Redirect(w, r, keyPath(rec.ID)+"?secret=1", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, keyPath(rec.ID)+"?saved=1", http.StatusSeeOther)
}

// revokeConfirm is the page that asks before a key is revoked (the pages
// run no script: the question is a page of its own).
func (h *Handler) revokeConfirm(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	if rec.Status == keys.StatusRevoked {
		http.Redirect(w, r, keyPath(rec.ID), http.StatusSeeOther)
		return
	}
	p := pageOf(v, "Revoke key "+rec.Name+"?", "keys")
	p.Data = keyData{Key: rec}
	h.render(w, http.StatusOK, "revoke", p)
}

// revokeKey revokes a key when its form says the customer confirmed it.
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	err := error(nil)
	if r.PostFormValue("confirm") != "yes" {
		err = &accounts.InputError{Msg: "confirm: revoking is final: confirm it on the revoke page"}
	} else {
		_, err = h.opts.Accounts.RevokeKey(r.Context(), v.sess.Account.ID, rec.ID)
	}
	if err != nil {
		p := pageOf(v, "Key "+rec.Name, "keys")
		p.Data = keyData{Key: rec, Networks: h.networkNames(r)}
		h.fail(w, r, err, "key", p)
		return
	}
	http.Redirect(w, r, keyPath(rec.ID)+"?revoked=1", http.StatusSeeOther)
}
