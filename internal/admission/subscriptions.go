package admission

import (
	"fmt"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Subscription counts one more live subscription for key across all its
// connections, networks and listeners, or refuses it (-32005) when its
// plan's max_subscriptions are live. GiveSubscriptions gives them back.
//
// A key without a limit is counted too, so that what it gives back later
// (after a plan change gave it one) matches what it took.
func (a *Keys) Subscription(key *keys.Key) *jsonrpc.Error {
	if key == nil {
		return nil
	}
	n := &a.of(key.ID).subscriptions
	limit := int64(key.Plan.MaxSubscriptions)
	if limit <= 0 {
		n.Add(1)
		return nil
	}
	if takeUpTo(n, limit, 1) == 0 {
		return ErrTooManySubscriptions(key.Plan.MaxSubscriptions)
	}
	return nil
}

// GiveSubscriptions gives back n subscriptions of key counted by
// Subscription.
func (a *Keys) GiveSubscriptions(key *keys.Key, n int) {
	if key == nil || n <= 0 {
		return
	}
	a.of(key.ID).subscriptions.Add(int64(-n))
}

// ErrTooManySubscriptions is eth_subscribe's answer when the key's plan
// allows no more live subscriptions.
func ErrTooManySubscriptions(limit int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf("too many subscriptions for this API key (plan limit %d)", limit))
}
