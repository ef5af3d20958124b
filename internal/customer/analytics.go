package customer

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// analyticsData is an analytics page: an account's or one key's, over
// one period.
type analyticsData struct {
	// Key is set on a key's page.
	Key       *keys.Record
	Period    string
	Periods   []string
	Analytics accounts.Analytics
	Requests  chart
	Errors    chart
	// Base is the page's path without the period (links to the others).
	Base string
}

// analytics reads the analytics the request asks for (?period=): for
// the account, or for rec when set. A bad period is the caller's 400.
func (h *Handler) analytics(r *http.Request, v *visit, rec *keys.Record) (accounts.Analytics, error) {
	p, err := accounts.ParsePeriod(r.URL.Query().Get("period"))
	if err != nil {
		return accounts.Analytics{}, err
	}
	keyID := ""
	if rec != nil {
		keyID = rec.ID
	}
	return h.opts.Accounts.Analytics(r.Context(), v.sess.Account.ID, keyID, p)
}

// answerAnalytics reads the analytics the request asks for, as analytics
// does; when it cannot, it answers why (400 for a bad period) and is not ok.
func (h *Handler) answerAnalytics(w http.ResponseWriter, r *http.Request, v *visit, rec *keys.Record) (accounts.Analytics, bool) {
	a, err := h.analytics(r, v, rec)
	if accounts.IsInput(err) {
		h.message(w, r, v, http.StatusBadRequest, "Not understood", err.Error())
		return a, false
	}
	if err != nil {
		h.storeError(w, r, err)
		return a, false
	}
	return a, true
}

// withOwnedKey serves a key's view: the key the path names, when the
// account owns it (ownedKey answers when it does not).
func (h *Handler) withOwnedKey(w http.ResponseWriter, r *http.Request, v *visit,
	serve func(http.ResponseWriter, *http.Request, *visit, *keys.Record)) {
	if rec, ok := h.ownedKey(w, r, v); ok {
		serve(w, r, v, &rec)
	}
}

func (h *Handler) analyticsPage(w http.ResponseWriter, r *http.Request, v *visit, rec *keys.Record) {
	a, ok := h.answerAnalytics(w, r, v, rec)
	if !ok {
		return
	}
	d := analyticsData{Key: rec, Period: a.Period, Analytics: a, Base: Prefix + "/analytics",
		Requests: pointChart("Requests", "requests", a.Points, func(p accounts.Point) int64 { return p.Requests }),
		Errors:   pointChart("Errors", "errors", a.Points, func(p accounts.Point) int64 { return p.Errors })}
	for _, p := range accounts.Periods {
		d.Periods = append(d.Periods, p.Name)
	}
	title, nav := "Analytics", "analytics"
	if rec != nil {
		d.Base = Prefix + "/keys/" + rec.ID + "/analytics"
		title, nav = "Analytics of "+rec.Name, "keys"
	}
	p := pageOf(v, title, nav)
	p.Data = d
	h.render(w, http.StatusOK, "analytics", p)
}

func (h *Handler) accountAnalytics(w http.ResponseWriter, r *http.Request, v *visit) {
	h.analyticsPage(w, r, v, nil)
}

func (h *Handler) keyAnalytics(w http.ResponseWriter, r *http.Request, v *visit) {
	h.withOwnedKey(w, r, v, h.analyticsPage)
}

// pointChart draws a period's points by value, as dayChart draws days.
func pointChart(title, unit string, points []accounts.Point, value func(accounts.Point) int64) chart {
	days := make([]accounts.DayUsage, len(points))
	for i, p := range points {
		days[i] = accounts.DayUsage{Day: p.At, Requests: value(p)}
	}
	return dayChart(title, unit, days, func(d accounts.DayUsage) int64 { return d.Requests })
}

// analyticsCSVHeader names the columns of the analytics download.
var analyticsCSVHeader = []string{"period", "method", "requests", "credits", "timed", "p50_ms", "p95_ms", "p99_ms",
	"rate_limited", "daily_exceeded", "invalid", "forbidden", "limit", "upstream", "node"}

// writeAnalyticsCSV answers a's methods as a CSV download named name,
// one row per method (the error codes are on the page and in the JSON
// API). Every field is a label or a number: nothing a customer wrote, so
// no cell starts a formula.
func writeAnalyticsCSV(w http.ResponseWriter, name string, a accounts.Analytics) {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write(analyticsCSVHeader)
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	ms := func(v accounts.Millis) string { return strconv.FormatFloat(float64(v), 'f', 3, 64) }
	for _, m := range a.Methods {
		e := m.Errors
		_ = cw.Write([]string{a.Period, m.Method, n(m.Requests), n(m.Credits), n(m.Timed), ms(m.P50), ms(m.P95), ms(m.P99),
			n(e.RateLimited), n(e.Daily), n(e.Invalid), n(e.Forbidden), n(e.Limit), n(e.Upstream), n(e.Node)})
	}
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, _ = w.Write(buf.Bytes())
}

func (h *Handler) analyticsCSV(w http.ResponseWriter, r *http.Request, v *visit, rec *keys.Record) {
	a, ok := h.answerAnalytics(w, r, v, rec)
	if !ok {
		return
	}
	id := v.sess.Account.ID
	if rec != nil {
		id = rec.ID
	}
	writeAnalyticsCSV(w, "analytics-"+id+"-"+a.Period+".csv", a)
}

func (h *Handler) accountAnalyticsCSV(w http.ResponseWriter, r *http.Request, v *visit) {
	h.analyticsCSV(w, r, v, nil)
}

func (h *Handler) keyAnalyticsCSV(w http.ResponseWriter, r *http.Request, v *visit) {
	h.withOwnedKey(w, r, v, h.analyticsCSV)
}

// apiAnalytics answers the account's analytics (?period=1h|24h|30d) as
// JSON: the same accounts.Analytics the page shows.
func (h *Handler) apiAnalytics(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	h.apiAnalyticsOf(w, r, av, "")
}

func (h *Handler) apiKeyAnalytics(w http.ResponseWriter, r *http.Request, av *apiVisit) {
	h.apiAnalyticsOf(w, r, av, r.PathValue("id"))
}

func (h *Handler) apiAnalyticsOf(w http.ResponseWriter, r *http.Request, av *apiVisit, keyID string) {
	p, err := accounts.ParsePeriod(r.URL.Query().Get("period"))
	var a accounts.Analytics
	if err == nil {
		a, err = h.opts.Accounts.Analytics(r.Context(), av.account.ID, keyID, p)
	}
	if err != nil {
		h.apiFail(w, r, err)
		return
	}
	apiJSON(w, http.StatusOK, map[string]any{"analytics": a})
}
