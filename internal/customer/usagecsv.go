package customer

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/keys"
)

// usageCSVHeader names the columns of the usage download.
var usageCSVHeader = []string{"day", "key_id", "network", "method", "requests", "credits",
	"rate_limited", "daily_exceeded", "invalid", "forbidden", "limit", "upstream", "node"}

// writeUsageCSV answers usage records as a CSV download named name. Every
// field is a day, an id, a network or method label or a number: nothing a
// customer wrote (no key name), so no cell starts a formula.
func writeUsageCSV(w http.ResponseWriter, name string, rows []keys.UsageRow) {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write(usageCSVHeader)
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range rows {
		e := r.Errors
		_ = cw.Write([]string{r.Day, r.KeyID, r.Network, r.Method, n(r.Requests), n(r.Credits),
			n(e.RateLimited), n(e.Daily), n(e.Invalid), n(e.Forbidden), n(e.Limit), n(e.Upstream), n(e.Node)})
	}
	cw.Flush()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	_, _ = w.Write(buf.Bytes())
}

func (h *Handler) accountUsageCSV(w http.ResponseWriter, r *http.Request, v *visit) {
	rows, err := h.opts.Accounts.UsageRecords(r.Context(), v.sess.Account.ID, "")
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	writeUsageCSV(w, "usage-"+v.sess.Account.ID+".csv", rows)
}

func (h *Handler) keyUsageCSV(w http.ResponseWriter, r *http.Request, v *visit) {
	rec, ok := h.ownedKey(w, r, v)
	if !ok {
		return
	}
	rows, err := h.opts.Accounts.UsageRecords(r.Context(), v.sess.Account.ID, rec.ID)
	if err != nil {
		h.storeError(w, r, err)
		return
	}
	writeUsageCSV(w, "usage-"+rec.ID+".csv", rows)
}
