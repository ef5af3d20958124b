package ratelimit

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/telemetry"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Meter is the ingress's hook: it prices a whole request, spends its
// credits (or refuses it whole with 429) before any call is dispatched,
// and counts the answers in the usage records.
type Meter struct {
	Limiter *Limiter
	Costs   *Costs
	// Usage, when set, receives one count per call.
	Usage *Usage
	// Notes, when set, charges subscription notifications (made once,
	// shared by every generation's Meter).
	Notes *Notes
	// now is the clock (tests pin it); nil means time.Now.
	now func() time.Time
	day atomic.Pointer[cachedDay]
}

type cachedDay struct {
	unixDay int64
	s       string
}

// Network is what the meter knows of a request's network: the name its
// usage records and decisions carry, and the method table that prices its
// calls (nil: none). The meter takes plain values so that it needs neither
// the pipeline nor the ingress (the ingress's adapter: ingress.RateMeter).
type Network struct {
	Name    string
	Methods *methods.Table
}

// Call is what the meter knows of one call: its method, and the credits
// Admit priced it at (which Record counts).
type Call struct {
	Method  string
	Credits int64
	// Refused: the call is refused before any node runs it (the key's
	// network, method or contract allowlists): it costs nothing.
	Refused bool
	// Took is how long nodegate took to answer the call (0: not timed),
	// which Record counts in the usage analytics.
	Took time.Duration
}

// Method names of usage records that are not a call's method: entries of
// a batch that were not valid requests, and method names no node knew
// (kept apart so that made-up names cannot grow the records without bound).
// They are methods.Label's values: every record's method goes through it.
const (
	MethodInvalid = methods.LabelInvalid
	MethodUnknown = methods.LabelUnknown
)

// The messages of docs/spec.md's error table.
const (
	msgRate  = "API key request rate exceeded"
	msgDaily = "daily request count exceeded, request rate limited"
)

// Admit prices calls (setting each call's Credits; a Refused call's is 0) and the request's
// invalid entries (the cheapest method's credits each: a request of junk
// is not free), and spends the sum for key. A refusal is the whole
// request's answer (HTTP 429, id null).
func (m *Meter) Admit(ctx context.Context, key *keys.Key, n Network, calls []Call, invalid int) *jsonrpc.Error {
	var total int64
	for i := range calls {
		c := &calls[i]
		if c.Refused {
			c.Credits = 0
			continue
		}
		c.Credits = m.Costs.Of(n.Methods, c.Method)
		total += c.Credits
	}
	total += int64(invalid) * m.Costs.Cheapest(n.Methods)
	if key == nil || total == 0 {
		m.decided(n, OK)
		return nil
	}
	if rates := key.MethodRates(); rates != nil {
		if e := m.admitMethods(ctx, key, rates, n, calls, invalid); e != nil {
			return e
		}
	}
	lim := Limits{Rate: key.RatePerSecond(), Burst: burstOf(key), Daily: key.DailyCredits(), DailyOf: AccountBudget(key.Account)}
	if lim.Unlimited() {
		m.decided(n, OK)
		return nil
	}
	d := m.Limiter.Take(ctx, key.ID, total, lim, Admit)
	m.decided(n, d.Outcome)
	if d.Outcome == OK {
		return nil
	}
	m.refused(key, n, calls, invalid, d.Outcome)
	name := key.RateLimitName()
	if d.Outcome == DailyExceeded {
		name = key.DailyLimitName()
	}
	return refusal(d, lim.Rate, lim.Daily, name)
}

// refused counts a refused request's calls in the usage records.
func (m *Meter) refused(key *keys.Key, n Network, calls []Call, invalid int, o Outcome) {
	if m.Usage != nil {
		at, kind := m.stamp(), refusedKind(o)
		refusal := Answered{Code: jsonrpc.CodeLimitExceeded}
		for _, c := range calls {
			m.Usage.AddCall(at, key.ID, n.Name, usageMethod(c, nil), 0, kind, refusal)
		}
		for range invalid {
			m.Usage.AddCall(at, key.ID, n.Name, MethodInvalid, 0, kind, refusal)
		}
	}
}

// decided counts a request's decision in the one series of rate-limit
// decisions (admitted, or refused by the rate or the daily credits).
func (m *Meter) decided(n Network, o Outcome) {
	m.Limiter.metrics.decision(n.Name, o).Inc()
}

// refusedKind is how the usage records count a refused request's calls.
func refusedKind(o Outcome) keys.UsageErrors {
	if o == DailyExceeded {
		return keys.UsageErrors{Daily: 1}
	}
	return keys.UsageErrors{RateLimited: 1}
}

// refusal is the 429 answer of docs/spec.md for a decision; its data
// names the limit that was hit (limit: the key's, the plan's, or a
// method's own rate) with its value.
func refusal(d Decision, rate float64, daily int64, limit string) *jsonrpc.Error {
	secs := max(int64(math.Ceil(d.RetryAfter.Seconds())), 1)
	e := &jsonrpc.Error{Code: jsonrpc.CodeLimitExceeded, Status: http.StatusTooManyRequests,
		Header: http.Header{"Retry-After": []string{strconv.FormatInt(secs, 10)}}}
	data := append([]byte(nil), `{"limit":`...)
	data = strconv.AppendQuote(data, limit)
	if d.Outcome == DailyExceeded {
		e.Message = msgDaily
		data = append(data, `,"allowed_daily_credits":`...)
		data = strconv.AppendInt(data, daily, 10)
		e.Data = append(data, '}')
		return e
	}
	e.Message = msgRate
	data = append(data, `,"allowed_rps":`...)
	data = strconv.AppendFloat(data, rate, 'f', -1, 64)
	data = append(data, `,"current_rps":`...)
	data = strconv.AppendFloat(data, math.Round(d.CurrentRate*1000)/1000, 'f', -1, 64)
	data = append(data, `,"backoff_seconds":`...)
	data = strconv.AppendFloat(data, math.Ceil(d.RetryAfter.Seconds()*1000)/1000, 'f', -1, 64)
	e.Data = append(data, '}')
	return e
}

// Record counts a served request's calls and its invalid entries.
func (m *Meter) Record(key *keys.Key, n Network, calls []Call, answers []*jsonrpc.Response, invalid int) {
	if m.Usage == nil || key == nil {
		return
	}
	at := m.stamp()
	for i, c := range calls {
		var resp *jsonrpc.Response
		if i < len(answers) {
			resp = answers[i]
		}
		a := Answered{Took: c.Took}
		if resp != nil && resp.Err != nil {
			a.Code = resp.Err.Code
		}
		m.Usage.AddCall(at, key.ID, n.Name, usageMethod(c, resp), c.Credits, errorKind(resp), a)
	}
	if invalid > 0 {
		cheapest := m.Costs.Cheapest(n.Methods)
		for range invalid {
			m.Usage.AddCall(at, key.ID, n.Name, MethodInvalid, cheapest, keys.UsageErrors{Invalid: 1}, Answered{Code: jsonrpc.CodeInvalidRequest})
		}
	}
}

// Notifications opens the account key's subscription notifications on
// network are charged to (Notes); nil when nothing is charged.
func (m *Meter) Notifications(ctx context.Context, key *keys.Key, network string) *NoteAccount {
	if m.Notes == nil || key == nil {
		return nil
	}
	return m.Notes.Open(ctx, key, network, m.Costs.Notification())
}

// DailyCloseReason is the WebSocket close reason when a connection's key
// has spent its daily credits (a close reason holds at most 123 bytes).
const DailyCloseReason = "daily request count exceeded, request rate limited"

// usageMethod is the method a call is counted under: methods.Label of its
// name (refused calls included), and MethodUnknown for a name the network
// does not serve.
func usageMethod(c Call, resp *jsonrpc.Response) string {
	if resp != nil && resp.Err != nil && resp.Err.Code == jsonrpc.CodeMethodNotFound {
		return MethodUnknown
	}
	return methods.Label(c.Method)
}

// errorKind is an answer's error kind in the usage records: the outcome
// class of telemetry.Classify (the one classifier of answers), with
// unauthorized counted as forbidden.
func errorKind(resp *jsonrpc.Response) keys.UsageErrors {
	if resp == nil {
		return keys.UsageErrors{}
	}
	switch telemetry.Classify(resp.Err) {
	case telemetry.CodeOK:
		return keys.UsageErrors{}
	case telemetry.CodeRateLimited:
		return keys.UsageErrors{RateLimited: 1}
	case telemetry.CodeInvalid:
		return keys.UsageErrors{Invalid: 1}
	case telemetry.CodeUnauthorized, telemetry.CodeForbidden:
		return keys.UsageErrors{Forbidden: 1}
	case telemetry.CodeLimit:
		return keys.UsageErrors{Limit: 1}
	case telemetry.CodeUpstream:
		return keys.UsageErrors{Upstream: 1}
	default:
		return keys.UsageErrors{Node: 1}
	}
}

// today is the UTC day of usage records, formatted once per day.
// stamp is the UTC day and minute of now, the day's name made once a day.
func (m *Meter) stamp() Stamp {
	now := time.Now
	if m.now != nil {
		now = m.now
	}
	t := now()
	unix := t.Unix()
	ud := unix / 86400
	if c := m.day.Load(); c != nil && c.unixDay == ud {
		return Stamp{Day: c.s, Minute: unix / 60}
	}
	c := &cachedDay{unixDay: ud, s: keys.UsageDay(t)}
	m.day.Store(c)
	return Stamp{Day: c.s, Minute: unix / 60}
}

// burstOf is the credits a full bucket of key holds: its plan's burst, in
// proportion when the key has a rate of its own below the plan's (the
// same seconds' worth of the lower rate), so that a key's own rate is not
// exceeded by the plan's burst.
func burstOf(key *keys.Key) float64 {
	b, plan, own := float64(key.Plan.Burst), key.Plan.RatePerSecond, key.RatePerSecond()
	if b > 0 && plan > 0 && own > 0 && own < plan {
		return b * own / plan
	}
	return b
}
