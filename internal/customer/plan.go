package customer

import (
	"net/http"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// planRow is what one plan grants, as the plan page lists it.
type planRow struct {
	Name    string
	Plan    keys.Plan
	MaxKeys int
	Current bool
}

// planData is the plan page.
type planData struct {
	Plans       []planRow
	CanUpgrade  bool
	UpgradePlan string
	CustomPlan  string
	CanRequest  bool
	Requests    []accounts.PlanRequest
}

func (h *Handler) planData(r *http.Request, v *visit) (planData, error) {
	a := h.opts.Accounts
	o := a.Options()
	reqs, err := a.AccountRequests(r.Context(), v.sess.Account.ID)
	if err != nil {
		return planData{}, err
	}
	d := planData{CanUpgrade: a.CanUpgrade(v.sess.Account), UpgradePlan: o.UpgradePlan, CustomPlan: o.CustomPlan,
		Requests: reqs}
	_, custom := a.Plans()[o.CustomPlan]
	d.CanRequest = custom && v.sess.Account.Plan != o.CustomPlan
	for _, rq := range reqs {
		if rq.Status == accounts.RequestOpen {
			d.CanRequest = false
		}
	}
	plans := a.Plans()
	for _, n := range a.PlanNames() {
		d.Plans = append(d.Plans, planRow{Name: n, Plan: plans[n], MaxKeys: a.MaxKeys(n), Current: n == v.sess.Account.Plan})
	}
	return d, nil
}

func (h *Handler) renderPlan(w http.ResponseWriter, r *http.Request, v *visit, status int, notice string, err error) {
	d, derr := h.planData(r, v)
	if derr != nil {
		h.storeError(w, r, derr)
		return
	}
	p := pageOf(v, "Plan", "plan")
	p.Data, p.Notice = d, notice
	if err != nil {
		h.fail(w, r, err, "plan", p)
		return
	}
	h.render(w, status, "plan", p)
}

func (h *Handler) planPage(w http.ResponseWriter, r *http.Request, v *visit) {
	notice := ""
	if r.URL.Query().Get("upgraded") != "" {
		notice = "Upgraded: your keys have the new plan on every replica within the key refresh interval."
	}
	if r.URL.Query().Get("requested") != "" {
		notice = "Request sent: the operator will grant or decline it."
	}
	h.renderPlan(w, r, v, http.StatusOK, notice, nil)
}

func (h *Handler) upgrade(w http.ResponseWriter, r *http.Request, v *visit) {
	a, err := h.opts.Accounts.Upgrade(r.Context(), v.sess.Account.ID)
	if err != nil {
		h.renderPlan(w, r, v, http.StatusOK, "", err)
		return
	}
	v.sess.Account = a
	http.Redirect(w, r, Prefix+"/plan?upgraded=1", http.StatusSeeOther)
}

func (h *Handler) requestCustom(w http.ResponseWriter, r *http.Request, v *visit) {
	if _, err := h.opts.Accounts.RequestCustom(r.Context(), v.sess.Account.ID, r.PostFormValue("message")); err != nil {
		h.renderPlan(w, r, v, http.StatusOK, "", err)
		return
	}
	http.Redirect(w, r, Prefix+"/plan?requested=1", http.StatusSeeOther)
}
