package accounts

import (
	"context"
	"fmt"
	"sort"

	"github.com/nodegate/nodegate/internal/keys"
)

// UsageDays is how far back the usage pages look.
const UsageDays = 30

// DayUsage is one UTC day's requests and credits.
type DayUsage struct {
	Day      string `json:"day"`
	Requests int64  `json:"requests"`
	Credits  int64  `json:"credits"`
}

// MethodUsage is one method's requests, credits and refusals over the period.
type MethodUsage struct {
	Method   string           `json:"method"`
	Requests int64            `json:"requests"`
	Credits  int64            `json:"credits"`
	Errors   keys.UsageErrors `json:"errors"`
}

// Usage is what an account, or one of its keys, used over UsageDays.
type Usage struct {
	// Days has every day of the period, oldest first, zeros included.
	Days []DayUsage `json:"days"`
	// Methods are sorted by requests, most first.
	Methods []MethodUsage `json:"methods"`
	// Totals over the period, and today's credits.
	Requests     int64            `json:"requests"`
	Credits      int64            `json:"credits"`
	Errors       keys.UsageErrors `json:"errors"`
	TodayCredits int64            `json:"today_credits"`
}

// Usage sums the usage records of an account's keys (keyID ""), or of one
// key it owns, over the last UsageDays UTC days. Records reach the store
// every usage_flush, so the last seconds may be missing.
func (s *Service) Usage(ctx context.Context, account, keyID string) (Usage, error) {
	now := s.now()
	since := keys.UsageDay(now.AddDate(0, 0, -(UsageDays - 1)))
	where, args := "key_id IN (SELECT id FROM nodegate_keys WHERE account_id = ?)", []any{account}
	if keyID != "" {
		if _, err := s.Key(ctx, account, keyID); err != nil {
			return Usage{}, err
		}
		where, args = "key_id = ?", []any{keyID}
	}
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q(`SELECT day, method, SUM(requests), SUM(credits),
		SUM(errors_rate_limited), SUM(errors_daily), SUM(errors_invalid), SUM(errors_forbidden), SUM(errors_limit), SUM(errors_upstream), SUM(errors_node)
		FROM nodegate_usage WHERE `+where+` AND day >= ? GROUP BY day, method`), append(args, since)...)
	if err != nil {
		return Usage{}, fmt.Errorf("read usage: %w", err)
	}
	defer rows.Close()
	u := Usage{}
	byDay := map[string]*DayUsage{}
	byMethod := map[string]*MethodUsage{}
	today := keys.UsageDay(now)
	for rows.Next() {
		var (
			day, method       string
			requests, credits int64
			e                 keys.UsageErrors
		)
		if err := rows.Scan(&day, &method, &requests, &credits, &e.RateLimited, &e.Daily, &e.Invalid, &e.Forbidden, &e.Limit, &e.Upstream, &e.Node); err != nil {
			return Usage{}, fmt.Errorf("read usage: %w", err)
		}
		d := byDay[day]
		if d == nil {
			d = &DayUsage{Day: day}
			byDay[day] = d
		}
		d.Requests += requests
		d.Credits += credits
		m := byMethod[method]
		if m == nil {
			m = &MethodUsage{Method: method}
			byMethod[method] = m
		}
		m.Requests += requests
		m.Credits += credits
		m.Errors.Add(e)
		u.Requests += requests
		u.Credits += credits
		u.Errors.Add(e)
		if day == today {
			u.TodayCredits += credits
		}
	}
	if err := rows.Err(); err != nil {
		return Usage{}, fmt.Errorf("read usage: %w", err)
	}
	for i := UsageDays - 1; i >= 0; i-- {
		day := keys.UsageDay(now.AddDate(0, 0, -i))
		d := DayUsage{Day: day}
		if got := byDay[day]; got != nil {
			d = *got
		}
		u.Days = append(u.Days, d)
	}
	for _, m := range byMethod {
		u.Methods = append(u.Methods, *m)
	}
	sort.Slice(u.Methods, func(i, j int) bool {
		if u.Methods[i].Requests != u.Methods[j].Requests {
			return u.Methods[i].Requests > u.Methods[j].Requests
		}
		return u.Methods[i].Method < u.Methods[j].Method
	})
	return u, nil
}

// MaxUsageRecords bounds the records UsageRecords returns (the CSV
// download): the newest days first are kept.
const MaxUsageRecords = 100_000

// UsageRecords lists the usage records of an account's keys (keyID "")
// or of one key it owns over the last UsageDays UTC days, one row per
// day, key, network and method, oldest day first.
func (s *Service) UsageRecords(ctx context.Context, account, keyID string) ([]keys.UsageRow, error) {
	since := keys.UsageDay(s.now().AddDate(0, 0, -(UsageDays - 1)))
	where, args := "key_id IN (SELECT id FROM nodegate_keys WHERE account_id = ?)", []any{account}
	if keyID != "" {
		if _, err := s.Key(ctx, account, keyID); err != nil {
			return nil, err
		}
		where, args = "key_id = ?", []any{keyID}
	}
	rows, err := s.db.DB.QueryContext(ctx, s.db.Q(`SELECT day, key_id, network, method, requests, credits,
		errors_rate_limited, errors_daily, errors_invalid, errors_forbidden, errors_limit, errors_upstream, errors_node
		FROM nodegate_usage WHERE `+where+` AND day >= ? ORDER BY day DESC, key_id, network, method LIMIT ?`), append(args, since, MaxUsageRecords)...)
	if err != nil {
		return nil, fmt.Errorf("read usage records: %w", err)
	}
	defer rows.Close()
	out := []keys.UsageRow{}
	for rows.Next() {
		var r keys.UsageRow
		e := &r.Errors
		if err := rows.Scan(&r.Day, &r.KeyID, &r.Network, &r.Method, &r.Requests, &r.Credits,
			&e.RateLimited, &e.Daily, &e.Invalid, &e.Forbidden, &e.Limit, &e.Upstream, &e.Node); err != nil {
			return nil, fmt.Errorf("read usage records: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read usage records: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { // oldest day first
		a, b := out[i], out[j]
		if a.Day != b.Day {
			return a.Day < b.Day
		}
		if a.KeyID != b.KeyID {
			return a.KeyID < b.KeyID
		}
		if a.Network != b.Network {
			return a.Network < b.Network
		}
		return a.Method < b.Method
	})
	return out, nil
}
