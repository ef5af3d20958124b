package customer

import (
	"net/http"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// usageData is a usage page: an account's or one key's.
type usageData struct {
	// Key is set on a key's page.
	Key      *keys.Record
	Usage    accounts.Usage
	Requests chart
	Credits  chart
	Budget   gauge
	// Rate is the rate in use: the key's, or each key's on the account page.
	Rate float64
	Plan string
}

func (h *Handler) usageData(r *http.Request, v *visit, rec *keys.Record) (usageData, error) {
	keyID := ""
	if rec != nil {
		keyID = rec.ID
	}
	u, err := h.opts.Accounts.Usage(r.Context(), v.sess.Account.ID, keyID)
	if err != nil {
		return usageData{}, err
	}
	plan := h.opts.Accounts.Plans()[v.sess.Account.Plan]
	rate, daily := plan.RatePerSecond, plan.DailyCredits
	if rec != nil {
		rate, daily = lower(rate, rec.RatePerSecond), lower(daily, rec.DailyCredits)
	}
	return usageData{
		Key: rec, Usage: u, Rate: rate, Plan: v.sess.Account.Plan,
		Requests: dayChart("Requests per day", "requests", u.Days, func(d accounts.DayUsage) int64 { return d.Requests }),
		Credits:  dayChart("Credits per day", "credits", u.Days, func(d accounts.DayUsage) int64 { return d.Credits }),
		Budget:   budgetGauge(u.TodayCredits, daily),
	}, nil
}

// lower is the stricter of a plan's limit and a key's own (0: none).
func lower[T int64 | float64](plan, own T) T {
	if own > 0 && (plan <= 0 || own < plan) {
		return own
	}
	return plan
}

func (h *Handler) accountUsage(w http.ResponseWriter, r *http.Request, v *visit) {
	d, err := h.usageData(r, v, nil)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	p := pageOf(v, "Usage", "usage")
	p.Data = d
	h.render(w, http.StatusOK, "usage", p)
}

func (h *Handler) keyUsage(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	d, err := h.usageData(r, v, &rec)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	p := pageOf(v, "Usage of "+rec.Name, "keys")
	p.Data = d
	h.render(w, http.StatusOK, "usage", p)
}
