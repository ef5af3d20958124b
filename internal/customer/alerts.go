package customer

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/accounts"
)

// alertsData is the alerts page: the settings, the thresholds, the
// deliveries, and a new webhook secret shown once.
type alertsData struct {
	Settings   accounts.AlertSettings
	Thresholds []int
	Deliveries []accounts.Delivery
	Secret     string
	Mail       bool
}

// alertsPath is the alerts page.
const alertsPath = Prefix + "/alerts"

func (h *Handler) alertsData(r *http.Request, v *visit) (alertsData, error) {
	a := h.opts.Accounts
	st, err := a.Alerts(r.Context(), v.sess.Account.ID)
	if err != nil {
		return alertsData{}, err
	}
	ds, err := a.Deliveries(r.Context(), v.sess.Account.ID)
	return alertsData{Settings: st, Thresholds: accounts.AlertThresholds, Deliveries: ds, Mail: a.Options().Mailer != nil}, err
}

func (h *Handler) alertsPage(w http.ResponseWriter, r *http.Request, v *visit) {
	d, err := h.alertsData(r, v)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	p := pageOf(v, "Alerts", "alerts")
	switch q := r.URL.Query(); {
	case q.Get("secret") != "":
		if f, ok := h.takeFlash(w, r, v, alertsPath); ok && f.Secret != "" {
			d.Secret = f.Secret
			p.Notice = "Saved. The webhook's new secret is shown only now: copy it to the receiver."
		} else {
			p.Notice = "Saved. The webhook's secret was shown once."
		}
	case q.Get("saved") != "":
		p.Notice = "Saved."
	}
	p.Data = d
	h.render(w, http.StatusOK, "alerts", p)
}

// alertsPatchOf reads the alerts form.
func alertsPatchOf(r *http.Request) (accounts.AlertsPatch, error) {
	var p accounts.AlertsPatch
	if r.PostFormValue("action") == "new-secret" {
		p.NewSecret = true
		return p, nil
	}
	pct := 0
	if s := strings.TrimSpace(r.PostFormValue("custom_percent")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, &accounts.InputError{Msg: "threshold: want a whole percent from 1 to 100, or empty for none"}
		}
		pct = n
	}
	mail := r.PostFormValue("mail") != ""
	hook := r.PostFormValue("webhook_url")
	p.CustomPercent, p.Mail, p.WebhookURL = &pct, &mail, &hook
	return p, nil
}

func (h *Handler) setAlerts(w http.ResponseWriter, r *http.Request, v *visit) {
	patch, err := alertsPatchOf(r)
	var secret string
	if err == nil {
		_, secret, err = h.opts.Accounts.SetAlerts(r.Context(), v.sess.Account.ID, patch)
	}
	if err != nil {
		d, derr := h.alertsData(r, v)
		if derr != nil {
			h.storeError(w, r, derr)
			return
		}
		p := pageOf(v, "Alerts", "alerts")
		p.Data = d
		h.fail(w, r, err, "alerts", p)
		return
	}
	if secret != "" {
		if err := h.setFlash(w, r, v, alertsPath, flash{Secret: secret}); err != nil {
			h.storeError(w, r, err)
			return
		}
		http.Redirect(w, r, alertsPath+"?secret=1", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, alertsPath+"?saved=1", http.StatusSeeOther)
}
