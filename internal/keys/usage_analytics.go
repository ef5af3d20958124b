package keys

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Retention of the analytics (schema_analytics.go): minutes answer the
// last hour and the last 24 hours, days the last 30 days.
const (
	MinuteRetention = 25 * time.Hour
	DayRetention    = 31 * 24 * time.Hour
)

// The spans of nodegate_usage_latency and nodegate_usage_codes rows.
const (
	SpanMinute = "m"
	SpanDay    = "d"
)

// minuteForm is the layout of a usage minute.
const minuteForm = "2006-01-02T15:04"

// UsageMinute formats t's UTC minute as the analytics name it.
func UsageMinute(t time.Time) string { return t.UTC().Format(minuteForm) }

// analyticsPurgeEvery is how often (in the rows' time) a replica deletes
// the analytics past their retention.
const analyticsPurgeEvery = 10 // minutes

// addAnalytics adds rows' minute counts, latency buckets and error codes
// in tx, each table in the order of its rows' keys (as AddUsage orders
// the days) so that two replicas flushing at once do not deadlock.
func (s *sqlStore) addAnalytics(ctx context.Context, tx *sql.Tx, rows []UsageRow) error {
	minutes := slices.DeleteFunc(slices.Clone(rows), func(r UsageRow) bool { return r.Minute == "" })
	slices.SortFunc(minutes, func(a, b UsageRow) int {
		return cmp.Or(strings.Compare(a.Minute, b.Minute), compareUsageRecord(a, b))
	})
	if err := s.upsertUsage(ctx, tx, "nodegate_usage_minutes", "minute", minutes, func(r UsageRow) string { return r.Minute }); err != nil {
		return err
	}
	var latency, codes []analyticsCell
	for _, r := range rows {
		latency = appendLatencyCells(latency, r)
		codes = appendCodeCells(codes, r)
	}
	if err := s.addCells(ctx, tx, "nodegate_usage_latency", "bucket", latency); err != nil {
		return err
	}
	return s.addCells(ctx, tx, "nodegate_usage_codes", "code", codes)
}

// analyticsCell is one row of nodegate_usage_latency (slot: a bucket) or
// nodegate_usage_codes (slot: a code): calls to add.
type analyticsCell struct {
	span, at, key, network, method string
	slot                           int
	calls                          int64
}

func compareCells(a, b analyticsCell) int {
	return cmp.Or(strings.Compare(a.span, b.span), strings.Compare(a.at, b.at), strings.Compare(a.key, b.key),
		strings.Compare(a.network, b.network), strings.Compare(a.method, b.method), cmp.Compare(a.slot, b.slot))
}

// spansOf are the periods a row's cells are added to: its day, and its
// minute when it has one.
func spansOf(r UsageRow) [][2]string {
	if r.Minute == "" {
		return [][2]string{{SpanDay, r.Day}}
	}
	return [][2]string{{SpanDay, r.Day}, {SpanMinute, r.Minute}}
}

func appendLatencyCells(dst []analyticsCell, r UsageRow) []analyticsCell {
	if r.Latency == nil {
		return dst
	}
	for _, sp := range spansOf(r) {
		for b, n := range r.Latency {
			if n > 0 {
				dst = append(dst, analyticsCell{span: sp[0], at: sp[1], key: r.KeyID, network: r.Network, method: r.Method, slot: b, calls: n})
			}
		}
	}
	return dst
}

func appendCodeCells(dst []analyticsCell, r UsageRow) []analyticsCell {
	if r.Codes == nil {
		return dst
	}
	for _, sp := range spansOf(r) {
		for code, n := range *r.Codes {
			if n > 0 {
				dst = append(dst, analyticsCell{span: sp[0], at: sp[1], key: r.KeyID, network: r.Network, method: r.Method, slot: code, calls: n})
			}
		}
	}
	return dst
}

// addCells adds cells to table, whose slot column is named slot.
func (s *sqlStore) addCells(ctx context.Context, tx *sql.Tx, table, slot string, cells []analyticsCell) error {
	if len(cells) == 0 {
		return nil
	}
	slices.SortFunc(cells, compareCells)
	stmt, err := tx.PrepareContext(ctx, s.q(`INSERT INTO `+table+` (span, at, key_id, network, method, `+slot+`, calls)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (span, at, key_id, network, method, `+slot+`) DO UPDATE SET calls = `+table+`.calls + excluded.calls`))
	if err != nil {
		return fmt.Errorf("record %s: %w", table, err)
	}
	defer stmt.Close()
	for _, c := range cells {
		if _, err := stmt.ExecContext(ctx, c.span, c.at, c.key, c.network, c.method, c.slot, c.calls); err != nil {
			return fmt.Errorf("record %s: %w", table, err)
		}
	}
	return nil
}

// purgeAnalytics deletes the analytics past their retention, judged from
// the newest minute of rows (the clock the records were counted by),
// every analyticsPurgeEvery minutes of it.
func (s *sqlStore) purgeAnalytics(ctx context.Context, rows []UsageRow) error {
	var newest string
	for _, r := range rows {
		newest = max(newest, r.Minute)
	}
	now, err := time.Parse(minuteForm, newest)
	if err != nil {
		return nil // no minute: nothing to judge by
	}
	at := now.Unix() / 60
	last := s.analyticsPurged.Load()
	if at-last < analyticsPurgeEvery || !s.analyticsPurged.CompareAndSwap(last, at) {
		return nil
	}
	minute, day := UsageMinute(now.Add(-MinuteRetention)), UsageDay(now.Add(-DayRetention))
	for _, d := range []struct{ query, before string }{
		{"DELETE FROM nodegate_usage_minutes WHERE minute < ?", minute},
		{"DELETE FROM nodegate_usage_latency WHERE span = 'm' AND at < ?", minute},
		{"DELETE FROM nodegate_usage_codes WHERE span = 'm' AND at < ?", minute},
		{"DELETE FROM nodegate_usage_latency WHERE span = 'd' AND at < ?", day},
		{"DELETE FROM nodegate_usage_codes WHERE span = 'd' AND at < ?", day},
	} {
		if _, err := s.db.ExecContext(ctx, s.q(d.query), d.before); err != nil {
			s.analyticsPurged.Store(last) // try again at the next flush
			return fmt.Errorf("purge usage analytics: %w", err)
		}
	}
	return nil
}
