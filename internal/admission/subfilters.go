package admission

import (
	"fmt"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/jsonrpc"
)

// SubscriptionFilter counts a logs subscription's filter of size
// parameters (its addresses and topic values) for key, across all its
// connections, networks and listeners, or refuses it (-32005) when the
// key's live subscriptions' filters would pass its plan's
// max_subscription_params together. GiveSubscriptionFilter gives it back.
// A filter of no parameters (every log) is not counted: max_subscriptions
// bounds those.
func (a *Keys) SubscriptionFilter(key *keys.Key, size int) *jsonrpc.Error {
	if key == nil || size <= 0 {
		return nil
	}
	n := &a.of(key.ID).subscriptionParams
	limit := int64(key.Plan.SubscriptionParamsBudget())
	for {
		cur := n.Load()
		if cur+int64(size) > limit {
			return ErrSubscriptionFiltersFull(int(limit), int(cur), size)
		}
		if n.CompareAndSwap(cur, cur+int64(size)) {
			return nil
		}
	}
}

// GiveSubscriptionFilter gives back a filter of size counted by
// SubscriptionFilter.
func (a *Keys) GiveSubscriptionFilter(key *keys.Key, size int) {
	if key == nil || size <= 0 {
		return
	}
	a.of(key.ID).subscriptionParams.Add(int64(-size))
}

// ErrSubscriptionFiltersFull is eth_subscribe's answer when the key's
// live logs subscriptions' filters leave no room for one of size.
func ErrSubscriptionFiltersFull(limit, live, size int) *jsonrpc.Error {
	return jsonrpc.NewError(jsonrpc.CodeLimitExceeded, fmt.Sprintf(
		"the logs subscriptions of this API key would filter on too many addresses and topics together: %d live, %d in this filter, plan limit %d (max_subscription_params); unsubscribe some or use fewer", live, size, limit))
}
