package admin

import (
	"net/http"
	"strconv"

	"github.com/nodegate/nodegate/internal/keys"
)

// DefaultUsageDays is how many UTC days a usage query covers without ?days.
const DefaultUsageDays = 7

// usage answers a key's usage records over the last ?days=N UTC days
// (today included), newest first. Counts reach the store every few
// seconds, so the last seconds may be missing.
func (h keysAPI) usage(w http.ResponseWriter, r *http.Request) {
	days := DefaultUsageDays
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			WriteError(w, http.StatusBadRequest, "days: want a whole number of days, got "+strconv.Quote(v))
			return
		}
		days = n
	}
	id := r.PathValue("id")
	rows, err := h.m.Usage(r.Context(), id, days)
	if err != nil {
		fail(w, err)
		return
	}
	if rows == nil {
		rows = []keys.UsageRow{}
	}
	WriteJSON(w, http.StatusOK, map[string]any{"key_id": id, "days": days, "usage": rows})
}
