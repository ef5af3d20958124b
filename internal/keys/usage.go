package keys

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// UsageRow is what one key used on one UTC day, network and method.
type UsageRow struct {
	// Day is the UTC day, YYYY-MM-DD.
	Day      string      `json:"day"`
	KeyID    string      `json:"key_id"`
	Network  string      `json:"network"`
	Method   string      `json:"method"`
	Requests int64       `json:"requests"`
	Credits  int64       `json:"credits"`
	Errors   UsageErrors `json:"errors"`

	// The analytics of the same calls (usage_analytics.go), kept apart
	// from the day's record: the UTC minute they were counted in
	// (UsageMinute's form; "" for none, as for notifications counted
	// before analytics), how long nodegate took to answer them (nil for
	// none), and how many were answered with each JSON-RPC error code
	// (nil for none). Pointers keep a UsageRow comparable.
	Minute  string         `json:"-"`
	Latency *LatencyHist   `json:"-"`
	Codes   *map[int]int64 `json:"-"`
}

// UsageErrors count the calls that were answered with an error, by kind.
type UsageErrors struct {
	// RateLimited: refused by the rate (429; free).
	RateLimited int64 `json:"rate_limited"`
	// Daily: refused because the daily credits were spent (429; free).
	// Records made before schema version 3 count these as RateLimited.
	Daily int64 `json:"daily_exceeded"`
	// Invalid: malformed request, unknown method, bad params.
	Invalid int64 `json:"invalid"`
	// Forbidden: the key's settings refused the call.
	Forbidden int64 `json:"forbidden"`
	// Limit: a method limit (eth_getLogs results, duration, params).
	Limit int64 `json:"limit"`
	// Upstream: no node could answer.
	Upstream int64 `json:"upstream"`
	// Node: the node answered an error (a revert, a -32000 error).
	Node int64 `json:"node"`
}

// Add adds o's counts to e.
func (e *UsageErrors) Add(o UsageErrors) {
	e.RateLimited += o.RateLimited
	e.Daily += o.Daily
	e.Invalid += o.Invalid
	e.Forbidden += o.Forbidden
	e.Limit += o.Limit
	e.Upstream += o.Upstream
	e.Node += o.Node
}

// UsageDay formats t's UTC day as usage records name it.
func UsageDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

const usageColumns = "day, key_id, network, method, requests, credits, errors_rate_limited, errors_invalid, errors_forbidden, errors_limit, errors_upstream, errors_node, errors_daily"

// usageCounts are the columns a usage record (a day's, or a minute's in
// the analytics) adds to, in the order usageCountArgs gives them.
var usageCounts = []string{"requests", "credits", "errors_rate_limited", "errors_invalid", "errors_forbidden",
	"errors_limit", "errors_upstream", "errors_node", "errors_daily"}

// usageCountArgs are r's counts in the order of usageCounts.
func usageCountArgs(r UsageRow) []any {
	e := r.Errors
	return []any{r.Requests, r.Credits, e.RateLimited, e.Invalid, e.Forbidden, e.Limit, e.Upstream, e.Node, e.Daily}
}

// upsertUsage adds rows' counts in tx to table, whose records are keyed by
// (period, key_id, network, method); at reads a row's period. Rows are
// written in the order given (the caller sorts them: see AddUsage).
func (s *sqlStore) upsertUsage(ctx context.Context, tx *sql.Tx, table, period string, rows []UsageRow, at func(UsageRow) string) error {
	if len(rows) == 0 {
		return nil
	}
	sums := make([]string, len(usageCounts))
	for i, c := range usageCounts {
		sums[i] = c + " = " + table + "." + c + " + excluded." + c
	}
	query := "INSERT INTO " + table + " (" + period + ", key_id, network, method, " + strings.Join(usageCounts, ", ") +
		") VALUES (?, ?, ?, ?" + strings.Repeat(", ?", len(usageCounts)) + ")" +
		" ON CONFLICT (" + period + ", key_id, network, method) DO UPDATE SET " + strings.Join(sums, ", ")
	stmt, err := tx.PrepareContext(ctx, s.q(query))
	if err != nil {
		return fmt.Errorf("record %s: %w", table, err)
	}
	defer stmt.Close()
	for _, r := range rows {
		args := append([]any{at(r), r.KeyID, r.Network, r.Method}, usageCountArgs(r)...)
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("record %s: %w", table, err)
		}
	}
	return nil
}

// AddUsage adds counts to the usage records in one transaction: rows are
// increments, summed into what is stored. They are written in the order of
// their record's key (day, key, network, method), so that two replicas
// flushing the same records at once lock them in the same order and wait
// for each other instead of deadlocking.
func (s *sqlStore) AddUsage(ctx context.Context, rows []UsageRow) error {
	if len(rows) == 0 {
		return nil
	}
	rows = slices.Clone(rows)
	slices.SortFunc(rows, compareUsageRecord)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.upsertUsage(ctx, tx, "nodegate_usage", "day", rows, func(r UsageRow) string { return r.Day }); err != nil {
			return err
		}
		return s.addAnalytics(ctx, tx, rows)
	})
	if err != nil {
		return err
	}
	// The counts are saved: a purge that fails must not have them added
	// again (the caller retries a failed AddUsage), so it is only logged.
	if err := s.purgeAnalytics(ctx, rows); err != nil {
		slog.Warn("usage analytics past their retention not deleted yet", "err", err)
	}
	return nil
}

// compareUsageRecord orders rows by their record's key.
func compareUsageRecord(a, b UsageRow) int {
	return cmp.Or(strings.Compare(a.Day, b.Day), strings.Compare(a.KeyID, b.KeyID),
		strings.Compare(a.Network, b.Network), strings.Compare(a.Method, b.Method))
}

// Usage returns a key's records from day since (YYYY-MM-DD) on, newest
// day first, then by network and method.
func (s *sqlStore) Usage(ctx context.Context, keyID, since string) ([]UsageRow, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT "+usageColumns+" FROM nodegate_usage WHERE key_id = ? AND day >= ? ORDER BY day DESC, network, method"), keyID, since)
	if err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	defer rows.Close()
	out := []UsageRow{}
	for rows.Next() {
		var r UsageRow
		e := &r.Errors
		if err := rows.Scan(&r.Day, &r.KeyID, &r.Network, &r.Method, &r.Requests, &r.Credits,
			&e.RateLimited, &e.Invalid, &e.Forbidden, &e.Limit, &e.Upstream, &e.Node, &e.Daily); err != nil {
			return nil, fmt.Errorf("read usage: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read usage: %w", err)
	}
	return out, nil
}

// MaxUsageDays bounds how far back a usage query looks.
const MaxUsageDays = 366

// Usage returns what key id used over the last days UTC days, today
// included. An id the store does not know is ErrNotFound unless it has
// records: keys from the config (api_keys) are not in the store.
func (m *Manager) Usage(ctx context.Context, id string, days int) ([]UsageRow, error) {
	if days < 1 || days > MaxUsageDays {
		return nil, inputErrorf("days: want 1 to %d, got %d", MaxUsageDays, days)
	}
	_, getErr := m.Store.Get(ctx, id)
	if getErr != nil && !IsNotFound(getErr) {
		return nil, getErr
	}
	since := UsageDay(m.now().AddDate(0, 0, -(days - 1)))
	rows, err := m.Store.Usage(ctx, id, since)
	if err != nil {
		return nil, err
	}
	if getErr != nil && len(rows) == 0 {
		return nil, getErr
	}
	return rows, nil
}
