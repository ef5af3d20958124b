package ratelimit

import (
	"context"
	"time"
)

// Limits are one key's effective limits; zero means unlimited.
type Limits struct {
	// Rate is the sustained credit rate per second.
	Rate float64
	// Burst is the credits a full rate bucket holds: what may be spent at
	// once (0, or less than Rate: one second's worth).
	Burst float64
	// Daily is the credit budget per UTC day.
	Daily int64
	// DailyOf names whom the daily budget is counted for when it is not
	// the key alone: an account's keys share one count (AccountBudget).
	// The rate is always the key's own.
	DailyOf string

	// drainedBy and dailyAtLeast carry what this replica last knew of the
	// key's buckets into a backend that may not know it (carry.go): the
	// rate bucket drains no earlier than drainedBy (Unix ns, 0 none) and
	// the day's count is at least dailyAtLeast. drainedLocally says the
	// replica decided the key locally since Redis last answered for it.
	drainedBy      int64
	dailyAtLeast   int64
	drainedLocally bool
}

// AccountBudget is the DailyOf of the keys an account owns.
func AccountBudget(account string) string {
	if account == "" {
		return ""
	}
	return "a:" + account // key ids are hex: never "a:…"
}

// dailySubject is whom a key's daily credits are counted for.
func (l Limits) dailySubject(key string) string {
	if l.DailyOf != "" {
		return l.DailyOf
	}
	return key
}

// Unlimited reports whether nothing needs counting for the rate.
func (l Limits) Unlimited() bool { return l.Rate <= 0 && l.Daily <= 0 }

// Outcome is why a request was refused, or OK.
type Outcome uint8

// The outcomes of Take.
const (
	OK Outcome = iota
	RateExceeded
	DailyExceeded
)

// Decision is the answer for one request.
type Decision struct {
	Outcome Outcome
	// RetryAfter is how long the client should wait (set when refused).
	RetryAfter time.Duration
	// CurrentRate is the credits per second the key is offering (accepted
	// and refused), a sliding one-second estimate.
	CurrentRate float64
	// DailyUsed is the key's credits spent today, this request included
	// when it was accepted.
	DailyUsed int64

	// drained is when the key's rate bucket will have drained after this
	// decision (Unix ns on this replica's clock, 0 unknown): carry.go.
	drained int64
}

// Mode says what a Take counts.
type Mode uint8

const (
	// Admit checks the rate and the daily budget and spends both, or
	// neither when refused.
	Admit Mode = iota
	// Spend spends daily credits only and never refuses: it records
	// WebSocket notifications already written (the rate does not apply to
	// pushes the client did not ask for each time, and the daily budget
	// was checked before they were queued: notes.go). A cost of 0 reads
	// the day's spend.
	Spend
)

// Backend counts credits. Implementations are safe for concurrent use.
type Backend interface {
	// Take counts cost credits for key under lim, as mode says. day is the
	// UTC day (YYYYMMDD) the daily budget belongs to.
	Take(ctx context.Context, key string, cost int64, lim Limits, day int, mode Mode) (Decision, error)
}

// dayOf is the UTC day of t as YYYYMMDD.
func dayOf(t time.Time) int {
	y, m, d := t.UTC().Date()
	return y*10000 + int(m)*100 + d
}

// untilMidnight is the time left in t's UTC day.
func untilMidnight(t time.Time) time.Duration {
	u := t.UTC()
	next := time.Date(u.Year(), u.Month(), u.Day()+1, 0, 0, 0, 0, time.UTC)
	return next.Sub(u)
}
