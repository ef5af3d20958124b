package customer

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// pageCap counts dashboard requests per subject in one-minute windows:
// over the cap a request answers 429. Signed-in accounts and signed-out
// client addresses (IPv4, or an IPv6 /64: accounts.AddressSubject) are
// counted in two tables of at most maxSubjects each; a new subject takes
// the place of the least recently seen one (its count is forgotten)
// instead of being refused, so a flood of addresses can neither grow the
// memory nor lock out a visitor, and never touches an account's count.
type pageCap struct {
	perMinute int
	mu        sync.Mutex
	accounts  *simplelru.LRU[string, pageCount]
	addresses *simplelru.LRU[string, pageCount]
}

// pageCount is a subject's requests in the minute window.
type pageCount struct {
	window int64
	n      int
}

const maxSubjects = 100_000

func newPageCap(perMinute int) *pageCap {
	return newPageCapOf(perMinute, maxSubjects)
}

func newPageCapOf(perMinute, size int) *pageCap {
	acc, _ := simplelru.NewLRU[string, pageCount](size, nil) // errors only for size <= 0
	addr, _ := simplelru.NewLRU[string, pageCount](size, nil)
	return &pageCap{perMinute: perMinute, accounts: acc, addresses: addr}
}

// allow counts one request of an account (signedIn) or an address at now.
func (c *pageCap) allow(subject string, signedIn bool, now time.Time) bool {
	w := now.Unix() / 60
	table := c.addresses
	if signedIn {
		table = c.accounts
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	pc, _ := table.Get(subject)
	if pc.window != w {
		pc = pageCount{window: w}
	}
	if pc.n >= c.perMinute {
		return false
	}
	pc.n++
	table.Add(subject, pc)
	return true
}
