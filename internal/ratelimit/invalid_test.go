package ratelimit

import (
	"context"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
)

// TestCheapest: an invalid entry costs the network's cheapest method,
// with the configured credits applied, and never nothing.
func TestCheapest(t *testing.T) {
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	cases := []struct {
		name       string
		configured map[string]int
		want       int64
	}{
		{"the method table's", nil, 5},
		{"a configured cheaper method", map[string]int{"eth_chainId": 2}, 2},
		{"a configured free method", map[string]int{"eth_blockNumber": 0}, 1},
		{"notifications are not a method", map[string]int{NotificationMethod: 1}, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewCosts(tc.configured).Cheapest(n.Methods); got != tc.want {
				t.Fatalf("cheapest %d, want %d", got, tc.want)
			}
		})
	}
}

// TestInvalidEntriesAreCharged: a request made only of invalid entries
// spends credits, so that repeating it hits the rate limit.
func TestInvalidEntriesAreCharged(t *testing.T) {
	n := Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM)}
	lim, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &Meter{Limiter: lim, Costs: NewCosts(nil)}
	k := keyOn(t, 1000, 0)
	admitted := 0
	for range 10 {
		if m.Admit(context.Background(), k, n, nil, 1000) == nil {
			admitted++
		}
	}
	// 1000 entries at 5 credits are five seconds of a 1000/s key: only
	// the first request fits (the bucket is full).
	if admitted != 1 {
		t.Fatalf("%d of 10 junk requests admitted at once, want 1", admitted)
	}
}
