package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// takeScript does one request's whole decision inside Redis, atomically
// and in one round trip: the offered-rate windows, the daily budget, the
// GCRA rate check, and spending. It uses Redis' clock (TIME), so replicas
// with skewed clocks still share one rate. Fields of the hash KEYS[1]:
// t (theoretical arrival time, µs), ws/wc/wp (offered-rate windows).
// KEYS[2] is the day's credit counter.
//
// ARGV: cost, rate (credits/s, 0 none), daily (0 none), mode (0 admit,
// 1 spend: never refused), daily key TTL (s), the µs from now before which
// the rate bucket cannot have drained (0 none), the least the day's count
// can be (0 none), 1 when the replica decided the key locally since
// Redis last answered for it, and the burst (credits a full bucket holds;
// 0: one second's worth). The drain time, the day's least and the local
// flag are what the replica carries over (carry.go), so that a Redis that lost its keys (a restart) or missed an outage's local
// decisions hands out no fresh bucket. The drain time applies only then:
// while Redis holds the bucket, its own time is exact, and the replica's
// (off by the round trip's latency) would only overcharge.
// The arrival time is kept as a float (µs with a fraction), so that a
// cost of a fraction of a microsecond at a high rate is not rounded up;
// it is written with %.17g because Lua's default number format (%.14g)
// would drop its last microseconds.
// Returns {outcome, wait µs, current rate ×1000, daily used, µs until the
// rate bucket drains}.
var takeScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local cost = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local daily = tonumber(ARGV[3])
local mode = tonumber(ARGV[4])
local h = redis.call('HMGET', KEYS[1], 't', 'ws', 'wc', 'wp')
local tat = tonumber(h[1]) or 0
local floor = tonumber(ARGV[6])
if floor > 0 and (h[1] == false or ARGV[8] == '1') and tat < now + floor then tat = now + floor end
local ws = tonumber(h[2]) or 0
local wc = tonumber(h[3]) or 0
local wp = tonumber(h[4]) or 0
local sec = math.floor(now / 1000000)
if sec == ws then
  wc = wc + cost
elseif sec == ws + 1 then
  wp = wc
  wc = cost
else
  wp = 0
  wc = cost
end
local frac = (now % 1000000) / 1000000
local cur = math.floor((wp * (1 - frac) + wc) * 1000)
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local least = tonumber(ARGV[7])
if least > used then
  used = least
  redis.call('SET', KEYS[2], used, 'EX', tonumber(ARGV[5]))
end
local outcome = 0
local wait = 0
if mode ~= 1 and daily > 0 and used + cost > daily then
  outcome = 2
elseif mode == 0 and rate > 0 then
  if tat < now then tat = now end
  local inc = cost * 1000000 / rate
  local newtat = tat + inc
  local allow = math.max(1000000, tonumber(ARGV[9]) * 1000000 / rate, inc)
  if newtat - now - allow > 0 then
    outcome = 1
    wait = math.ceil(newtat - now - allow)
  else
    tat = newtat
  end
end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tat), 'ws', sec, 'wc', wc, 'wp', wp)
redis.call('PEXPIRE', KEYS[1], math.max(2000, math.ceil((tat - now) / 1000) + 2000))
if outcome == 0 and cost > 0 then
  used = redis.call('INCRBY', KEYS[2], cost)
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
end
return {outcome, wait, cur, used, math.max(0, math.ceil(tat - now))}
`)

// Redis is the shared backend: every replica pointing at the same Redis
// (and prefix) spends from one budget per key.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis uses client with keys under prefix ("nodegate" → nodegate:r:ID).
func NewRedis(client *redis.Client, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// dailyTTL keeps a day's counter past the day's end, for usage checks
// across midnight, then lets Redis drop it.
const dailyTTL = 48 * time.Hour

// Take implements Backend with one EVALSHA round trip.
func (r *Redis) Take(ctx context.Context, key string, cost int64, lim Limits, day int, mode Mode) (Decision, error) {
	keys := []string{r.prefix + ":r:" + key, r.prefix + ":d:" + lim.dailySubject(key) + ":" + strconv.Itoa(day)}
	rate := strconv.FormatFloat(lim.Rate, 'f', -1, 64)
	start := time.Now()
	var floor int64
	if lim.drainedBy > 0 { // µs, rounded down: the replica's is never later than it knew
		floor = max(0, (lim.drainedBy-start.UnixNano())/int64(time.Microsecond))
	}
	res, err := takeScript.Run(ctx, r.client, keys, cost, rate, lim.Daily, int(mode), int(dailyTTL/time.Second), floor, lim.dailyAtLeast, lim.drainedLocally, strconv.FormatFloat(lim.Burst, 'f', -1, 64)).Int64Slice()
	if err != nil {
		return Decision{}, fmt.Errorf("redis rate limit: %w", err)
	}
	if len(res) != 5 {
		return Decision{}, fmt.Errorf("redis rate limit: script returned %d values, want 5", len(res))
	}
	// The drain time on this replica's clock, counted from before the
	// round trip: never later than Redis' own.
	d := Decision{Outcome: Outcome(res[0]), CurrentRate: float64(res[2]) / 1000, DailyUsed: res[3], drained: start.UnixNano() + res[4]*int64(time.Microsecond)}
	switch d.Outcome {
	case RateExceeded:
		d.RetryAfter = time.Duration(res[1]) * time.Microsecond
	case DailyExceeded:
		d.RetryAfter = untilMidnight(time.Now())
	}
	return d, nil
}
