package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// Subscriber is implemented by upstreams that take eth_subscribe: a
// ws(s):// node over its one multiplexed connection (ws.go), the embedded
// node in process (inproc.go). params is eth_subscribe's params array, sent
// as it is. A node's refusal (a bad filter) comes back as a *jsonrpc.Error,
// an answer; any other error is a node fault.
type Subscriber interface {
	Subscribe(ctx context.Context, params json.RawMessage) (*Subscription, error)
}

// Subscription is one push subscription on one node. The results of its
// notifications arrive on C, in the node's order; Done is closed when it
// ends without being asked to (the connection dropped, the reader fell too
// far behind), and Err then says why.
type Subscription struct {
	C <-chan json.RawMessage

	done  chan struct{}
	once  sync.Once
	err   error
	unsub func() // tells the node, when it still can
}

// ErrSubscriptionEnded is the reason of a subscription ended by Unsubscribe.
var ErrSubscriptionEnded = errors.New("subscription ended")

// NewSubscription is a transport's new subscription delivering on c; unsub
// tells the node when the subscription is ended by Unsubscribe.
func NewSubscription(c <-chan json.RawMessage, unsub func()) *Subscription {
	return &Subscription{C: c, done: make(chan struct{}), unsub: unsub}
}

// Done is closed when the subscription has ended.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err is why the subscription ended (nil while it lives).
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Unsubscribe ends the subscription and tells the node.
func (s *Subscription) Unsubscribe() {
	if s.End(ErrSubscriptionEnded) && s.unsub != nil {
		s.unsub()
	}
}

// End records why the subscription ended (for transports: the connection
// dropped); it returns true the first time.
func (s *Subscription) End(err error) bool {
	first := false
	s.once.Do(func() {
		s.err, first = err, true
		close(s.done)
	})
	return first
}

// SubscriberOf is u's Subscriber, when it can push.
func SubscriberOf(u Upstream) (Subscriber, bool) {
	s, ok := u.(Subscriber)
	return s, ok
}
