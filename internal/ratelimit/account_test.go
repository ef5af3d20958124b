package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
)

// TestAccountBudget: two keys of one account spend one daily budget (in
// memory, and in Redis for a fleet), each at its own rate; a key of
// another account, or with no account, keeps its own count.
func TestAccountBudget(t *testing.T) {
	backends := map[string]func(t *testing.T) Backend{
		"memory": func(t *testing.T) Backend { return NewMemory() },
		"redis": func(t *testing.T) Backend {
			c := redistest.Require(t)
			return NewRedis(c, redistest.Prefix(t, c))
		},
	}
	for name, mk := range backends {
		t.Run(name, func(t *testing.T) {
			b := mk(t)
			day := dayOf(time.Now())
			take := func(key, account string, cost int64) Decision {
				t.Helper()
				d, err := b.Take(context.Background(), key, cost, Limits{Rate: 1000, Daily: 100, DailyOf: AccountBudget(account)}, day, Admit)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			if d := take("k1", "acct1", 60); d.Outcome != OK || d.DailyUsed != 60 {
				t.Fatalf("first key: %+v", d)
			}
			if d := take("k2", "acct1", 60); d.Outcome != DailyExceeded || d.DailyUsed != 60 {
				t.Fatalf("second key of the account over the shared budget: %+v", d)
			}
			if d := take("k2", "acct1", 40); d.Outcome != OK || d.DailyUsed != 100 {
				t.Fatalf("second key within the shared budget: %+v", d)
			}
			if d := take("k3", "acct2", 60); d.Outcome != OK || d.DailyUsed != 60 {
				t.Fatalf("another account's key: %+v", d)
			}
			if d := take("k1", "", 60); d.Outcome != OK || d.DailyUsed != 60 {
				t.Fatalf("a key counted alone: %+v", d)
			}
		})
	}
}
