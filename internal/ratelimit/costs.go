package ratelimit

import (
	"sync"

	"github.com/nodegate/nodegate/internal/methods"
)

// Costs prices calls in credits: the configuration's table (credits:)
// first, then the method table's cost, then methods.DefaultCredits.
type Costs struct {
	configured map[string]int64
	cheapest   sync.Map // *methods.Table → int64
}

// NewCosts uses the configured costs (method → credits) over the defaults.
func NewCosts(configured map[string]int) *Costs {
	c := &Costs{configured: make(map[string]int64, len(configured))}
	for m, v := range configured {
		c.configured[m] = int64(v)
	}
	return c
}

// Of is the cost of one call of method on a network whose method table is
// table (nil: none).
func (c *Costs) Of(table *methods.Table, method string) int64 {
	if v, ok := c.configured[method]; ok {
		return v
	}
	if table != nil {
		if r, err := table.Lookup(method); err == nil && r.Credits > 0 {
			return int64(r.Credits)
		}
	}
	return methods.DefaultCredits
}

// NotificationMethod names a subscription's notifications in the credits
// table and the usage records.
const NotificationMethod = "eth_subscription"

// DefaultNotificationCredits is what one notification costs unless the
// credits table says otherwise.
const DefaultNotificationCredits = 10

// Notification is the cost of one subscription notification.
func (c *Costs) Notification() int64 {
	if v, ok := c.configured[NotificationMethod]; ok {
		return v
	}
	return DefaultNotificationCredits
}

// Cheapest is what the cheapest method of a network whose method table is
// table (nil: none) costs, and at least one credit: the price of a batch
// entry that is not a valid request, so that a body of junk entries is
// rate limited like as many calls.
func (c *Costs) Cheapest(table *methods.Table) int64 {
	if v, ok := c.cheapest.Load(table); ok {
		return v.(int64)
	}
	low := int64(methods.DefaultCredits)
	consider := func(method string, credits int64) {
		if v, ok := c.configured[method]; ok && method != "" {
			credits = v
		}
		low = min(low, credits)
	}
	if table != nil {
		table.EachCost(func(method string, credits int) { consider(method, int64(credits)) })
	}
	for method, v := range c.configured {
		if method != NotificationMethod {
			consider(method, v)
		}
	}
	low = max(low, 1)
	c.cheapest.Store(table, low)
	return low
}
