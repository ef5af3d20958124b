package accounts

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
)

// Period is what an analytics view covers and in what steps.
type Period struct {
	// Name is the period as pages and the API take it: 1h, 24h or 30d.
	Name string
	// Points is how many steps the period has, Step how long each is.
	Points int
	Step   time.Duration
	// prefix is how many characters of a minute ("2026-11-27T10:04") or,
	// for days, of a day name a step's name keeps.
	prefix int
	// days: the steps are UTC days (nodegate_usage and span 'd'),
	// otherwise minutes summed (nodegate_usage_minutes and span 'm').
	days bool
}

// The periods of the analytics: the last hour per minute, the last 24
// hours per hour, the last 30 days per day.
var (
	PeriodHour  = Period{Name: "1h", Points: 60, Step: time.Minute, prefix: 16}
	PeriodDay   = Period{Name: "24h", Points: 24, Step: time.Hour, prefix: 13}
	PeriodMonth = Period{Name: "30d", Points: UsageDays, Step: 24 * time.Hour, prefix: 10, days: true}
	Periods     = []Period{PeriodHour, PeriodDay, PeriodMonth}
)

// ParsePeriod is the period named s ("" is the last hour).
func ParsePeriod(s string) (Period, error) {
	if s == "" {
		return PeriodHour, nil
	}
	for _, p := range Periods {
		if p.Name == s {
			return p, nil
		}
	}
	return Period{}, inputf("period: want 1h, 24h or 30d, got %q", clip(s, 16))
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// stepName is the name of the step t falls in ("2026-11-27T10:04",
// "2026-11-27T10", "2026-11-27").
func (p Period) stepName(t time.Time) string {
	return keys.UsageMinute(t)[:p.prefix]
}

// Point is one step of a period: what was used in it.
type Point struct {
	// At names the step: a minute, an hour (YYYY-MM-DDTHH) or a day, UTC.
	At       string `json:"at"`
	Requests int64  `json:"requests"`
	Credits  int64  `json:"credits"`
	Errors   int64  `json:"errors"`
}

// MethodAnalytics is one method's calls over a period, with nodegate's
// time to answer them (of the calls it timed: those that ran).
type MethodAnalytics struct {
	Method   string           `json:"method"`
	Requests int64            `json:"requests"`
	Credits  int64            `json:"credits"`
	Errors   keys.UsageErrors `json:"errors"`
	Timed    int64            `json:"timed"`
	P50      Millis           `json:"p50_ms"`
	P95      Millis           `json:"p95_ms"`
	P99      Millis           `json:"p99_ms"`
	// latency is the period's histogram (Timed calls).
	latency keys.LatencyHist
}

// Millis is a duration shown in milliseconds.
type Millis float64

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) Millis { return Millis(float64(d.Microseconds()) / 1000) }

// CodeCount is how many calls of a method were answered with a JSON-RPC
// error code.
type CodeCount struct {
	Method string `json:"method"`
	Code   int    `json:"code"`
	Calls  int64  `json:"calls"`
}

// Analytics is what an account, or one of its keys, used over a period.
type Analytics struct {
	Period string `json:"period"`
	// Points has every step of the period, oldest first, zeros included.
	Points []Point `json:"points"`
	// Methods are sorted by requests, most first.
	Methods []MethodAnalytics `json:"methods"`
	// Codes are sorted by calls, most first.
	Codes    []CodeCount      `json:"codes"`
	Requests int64            `json:"requests"`
	Credits  int64            `json:"credits"`
	Errors   keys.UsageErrors `json:"errors"`
}

// Analytics sums the analytics of an account's keys (keyID ""), or of
// one key it owns, over period p ending now. Records reach the store
// every usage_flush, so the last seconds may be missing.
func (s *Service) Analytics(ctx context.Context, account, keyID string, p Period) (Analytics, error) {
	where, args := "key_id IN (SELECT id FROM nodegate_keys WHERE account_id = ?)", []any{account}
	if keyID != "" {
		if _, err := s.Key(ctx, account, keyID); err != nil {
			return Analytics{}, err
		}
		where, args = "key_id = ?", []any{keyID}
	}
	now := s.now()
	first := now.Add(-time.Duration(p.Points-1) * p.Step)
	q := analyticsQuery{s: s, p: p, where: where, args: args, since: p.stepName(first)}
	if p.days {
		q.since = keys.UsageDay(now.AddDate(0, 0, -(p.Points - 1)))
	}
	a := Analytics{Period: p.Name}
	byMethod := map[string]*MethodAnalytics{}
	method := func(name string) *MethodAnalytics {
		m := byMethod[name]
		if m == nil {
			m = &MethodAnalytics{Method: name}
			byMethod[name] = m
		}
		return m
	}
	byStep, err := q.counts(ctx, &a, method)
	if err != nil {
		return Analytics{}, err
	}
	if err := q.latency(ctx, method); err != nil {
		return Analytics{}, err
	}
	if a.Codes, err = q.codes(ctx); err != nil {
		return Analytics{}, err
	}
	for i := range p.Points {
		at := p.stepName(first.Add(time.Duration(i) * p.Step))
		if p.days {
			at = keys.UsageDay(now.AddDate(0, 0, i-(p.Points-1)))
		}
		pt := Point{At: at}
		if got := byStep[at]; got != nil {
			pt = *got
		}
		a.Points = append(a.Points, pt)
	}
	for _, m := range byMethod {
		m.Timed = m.latency.Count()
		m.P50, m.P95, m.P99 = millis(m.latency.Quantile(0.50)), millis(m.latency.Quantile(0.95)), millis(m.latency.Quantile(0.99))
		a.Methods = append(a.Methods, *m)
	}
	slices.SortFunc(a.Methods, func(x, y MethodAnalytics) int {
		return cmp.Or(cmp.Compare(y.Requests, x.Requests), cmp.Compare(x.Method, y.Method))
	})
	return a, nil
}

// analyticsQuery reads one period's rows of the keys where selects.
type analyticsQuery struct {
	s     *Service
	p     Period
	where string
	args  []any
	since string // the first step's name
}

// span is the latency and codes rows' span of q's period.
func (q analyticsQuery) span() string {
	if q.p.days {
		return keys.SpanDay
	}
	return keys.SpanMinute
}

// counts adds the period's requests, credits and errors to a and its
// methods, and returns them per step.
func (q analyticsQuery) counts(ctx context.Context, a *Analytics, method func(string) *MethodAnalytics) (map[string]*Point, error) {
	table, at := "nodegate_usage_minutes", "minute"
	if q.p.days {
		table, at = "nodegate_usage", "day"
	}
	step := fmt.Sprintf("SUBSTR(%s, 1, %d)", at, q.p.prefix) // the period's own constant
	rows, err := q.s.db.DB.QueryContext(ctx, q.s.db.Q(`SELECT `+step+`, method, SUM(requests), SUM(credits),
		SUM(errors_rate_limited), SUM(errors_daily), SUM(errors_invalid), SUM(errors_forbidden), SUM(errors_limit), SUM(errors_upstream), SUM(errors_node)
		FROM `+table+` WHERE `+q.where+` AND `+at+` >= ? GROUP BY `+step+`, method`), append(q.args, q.since)...)
	if err != nil {
		return nil, fmt.Errorf("read analytics: %w", err)
	}
	defer rows.Close()
	byStep := map[string]*Point{}
	for rows.Next() {
		var (
			step, name        string
			requests, credits int64
			e                 keys.UsageErrors
		)
		if err := rows.Scan(&step, &name, &requests, &credits, &e.RateLimited, &e.Daily, &e.Invalid, &e.Forbidden, &e.Limit, &e.Upstream, &e.Node); err != nil {
			return nil, fmt.Errorf("read analytics: %w", err)
		}
		pt := byStep[step]
		if pt == nil {
			pt = &Point{At: step}
			byStep[step] = pt
		}
		errs := errorsOf(e)
		pt.Requests += requests
		pt.Credits += credits
		pt.Errors += errs
		m := method(name)
		m.Requests += requests
		m.Credits += credits
		m.Errors.Add(e)
		a.Requests += requests
		a.Credits += credits
		a.Errors.Add(e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read analytics: %w", err)
	}
	return byStep, nil
}

// errorsOf is how many calls e counts.
func errorsOf(e keys.UsageErrors) int64 {
	return e.RateLimited + e.Daily + e.Invalid + e.Forbidden + e.Limit + e.Upstream + e.Node
}

// latency merges the period's latency buckets into each method's
// histogram.
func (q analyticsQuery) latency(ctx context.Context, method func(string) *MethodAnalytics) error {
	rows, err := q.s.db.DB.QueryContext(ctx, q.s.db.Q(`SELECT method, bucket, SUM(calls) FROM nodegate_usage_latency
		WHERE span = ? AND `+q.where+` AND at >= ? GROUP BY method, bucket`), append([]any{q.span()}, append(q.args, q.since)...)...)
	if err != nil {
		return fmt.Errorf("read latency: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name   string
			bucket int
			calls  int64
		)
		if err := rows.Scan(&name, &bucket, &calls); err != nil {
			return fmt.Errorf("read latency: %w", err)
		}
		if bucket >= 0 && bucket < keys.LatencyBuckets {
			method(name).latency[bucket] += calls
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read latency: %w", err)
	}
	return nil
}

// codes are the period's calls per method and JSON-RPC error code.
func (q analyticsQuery) codes(ctx context.Context) ([]CodeCount, error) {
	rows, err := q.s.db.DB.QueryContext(ctx, q.s.db.Q(`SELECT method, code, SUM(calls) FROM nodegate_usage_codes
		WHERE span = ? AND `+q.where+` AND at >= ? GROUP BY method, code`), append([]any{q.span()}, append(q.args, q.since)...)...)
	if err != nil {
		return nil, fmt.Errorf("read error codes: %w", err)
	}
	defer rows.Close()
	out := []CodeCount{}
	for rows.Next() {
		var c CodeCount
		if err := rows.Scan(&c.Method, &c.Code, &c.Calls); err != nil {
			return nil, fmt.Errorf("read error codes: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read error codes: %w", err)
	}
	slices.SortFunc(out, func(x, y CodeCount) int {
		return cmp.Or(cmp.Compare(y.Calls, x.Calls), cmp.Compare(x.Method, y.Method), cmp.Compare(x.Code, y.Code))
	})
	return out, nil
}
