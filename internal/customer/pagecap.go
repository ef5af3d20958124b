package customer

import (
	"sync"
	"time"
)

// pageCap counts dashboard requests per subject (an account, or a client
// address when signed out) in one-minute windows: over the cap a request
// answers 429. The counts of a window are dropped when the next begins,
// and at most maxSubjects are counted at once (more in one minute are
// refused), so its memory is bounded.
type pageCap struct {
	perMinute int
	mu        sync.Mutex
	window    int64
	counts    map[string]int
}

const maxSubjects = 100_000

func newPageCap(perMinute int) *pageCap {
	return &pageCap{perMinute: perMinute, counts: map[string]int{}}
}

// allow counts one request of subject at now.
func (c *pageCap) allow(subject string, now time.Time) bool {
	w := now.Unix() / 60
	c.mu.Lock()
	defer c.mu.Unlock()
	if w != c.window {
		c.window, c.counts = w, map[string]int{}
	}
	n, ok := c.counts[subject]
	if !ok && len(c.counts) >= maxSubjects {
		return false
	}
	if n >= c.perMinute {
		return false
	}
	c.counts[subject] = n + 1
	return true
}
