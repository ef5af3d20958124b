package ratelimit

import (
	"math"
	"time"
)

// bucket is one key's rate state: the generic cell rate algorithm's
// theoretical arrival time, and a two-window count of offered credits for
// the current_rps estimate. Times are nanoseconds. The Redis script keeps
// the same fields with the same arithmetic (redis.go).
type bucket struct {
	tat       int64 // when the key's spent credits will have drained
	winSec    int64 // the second the current window counts
	winCur    int64 // credits offered in that second
	winPrev   int64 // credits offered in the second before
	day       int   // the UTC day dailyUsed belongs to
	dailyUsed int64
}

const nano = int64(time.Second)

// offer adds cost to the offered-rate windows and returns the estimate:
// the previous second weighted by how much of it still lies in the last
// second, plus the current second.
func (b *bucket) offer(now, cost int64) float64 {
	sec := now / nano
	switch {
	case sec == b.winSec:
		b.winCur += cost
	case sec == b.winSec+1:
		b.winPrev, b.winCur = b.winCur, cost
	default:
		b.winPrev, b.winCur = 0, cost
	}
	b.winSec = sec
	frac := float64(now%nano) / float64(nano)
	return float64(b.winPrev)*(1-frac) + float64(b.winCur)
}

// gcra decides cost credits at rate credits per second with a burst of
// burst credits (at least one second's worth). A request costing more
// than the burst passes when the bucket is full, so that no request is
// refused for ever. It returns the new theoretical arrival time, or the
// wait when refused.
func gcra(tat, now, cost int64, rate, burst float64) (newTAT int64, wait int64, ok bool) {
	if tat < now {
		tat = now
	}
	inc := int64(math.Round(float64(cost) * float64(nano) / rate))
	newTAT = tat + inc
	allow := max(int64(nano), int64(burst*float64(nano)/rate), inc)
	if over := newTAT - now - allow; over > 0 {
		return tat, over, false
	}
	return newTAT, 0, true
}
