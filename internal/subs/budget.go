package subs

import (
	"fmt"
	"sync"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Budget counts each key's live subscriptions across all its connections,
// networks and listeners, for the plan's max_subscriptions. It is made once
// per process (it outlives reloads, as the subscriptions do).
type Budget struct {
	mu    sync.Mutex
	byKey map[string]int
}

// NewBudget makes an empty budget.
func NewBudget() *Budget { return &Budget{byKey: map[string]int{}} }

// take counts one more subscription for key, unless limit (> 0) is reached.
func (b *Budget) take(key string, limit int) *jsonrpc.Error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if limit > 0 && b.byKey[key] >= limit {
		return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("too many subscriptions for this project ID (plan limit %d)", limit))
	}
	b.byKey[key]++
	return nil
}

// give returns n subscriptions of key.
func (b *Budget) give(key string, n int) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byKey[key] <= n {
		delete(b.byKey, key)
		return
	}
	b.byKey[key] -= n
}

// Of is key's live subscriptions.
func (b *Budget) Of(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byKey[key]
}
