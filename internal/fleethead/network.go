package fleethead

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"
)

// Network is one network's side of the fleet's heads: the pool's
// upstream.HeadSharer.
type Network struct {
	f    *Fleet
	name string
	pool atomic.Pointer[Pool]
	// next is the head to publish, rewind one more than a rewound head
	// to publish (0: none); kick wakes the publisher.
	next   atomic.Uint64
	rewind atomic.Uint64
	kick   chan struct{}
	// handed counts the head moves handed over; tried is the count the
	// publisher last finished a send for (taken by Redis or not), and
	// tries is closed when it moves (Published waits on it).
	handed, tried atomic.Uint64
	triesMu       sync.Mutex
	tries         chan struct{}
	// failing: the last send was not taken (Redis away or slow); calls
	// do not wait for the next until one is.
	failing atomic.Bool
}

// HeadMoved hands a head move to the publisher; it never waits.
func (n *Network) HeadMoved(number uint64, rewound bool) {
	if rewound {
		n.rewind.Store(number + 1)
	} else {
		for {
			v := n.next.Load()
			if number <= v || n.next.CompareAndSwap(v, number) {
				break
			}
		}
	}
	n.handed.Add(1)
	select {
	case n.kick <- struct{}{}:
	default: // a send is due: it takes this one too
	}
}

// Published waits until the head moves handed over before it was called
// were sent to Redis (taken or not), at most one round trip's Timeout
// and while ctx lasts: the pool calls it before it answers any call, so
// that the other replicas hold the head before the client can ask them (a
// balancer sends its next request in well under the time a head takes to
// be published and pushed). It returns at once (three atomic loads) when
// nothing is pending, which is every call but those that end within a
// round trip of a head move, and while Redis does not take the heads
// (then each replica keeps its own view, and calls do not wait for it).
func (n *Network) Published(ctx context.Context) {
	want := n.handed.Load()
	if n.tried.Load() >= want || n.failing.Load() {
		return
	}
	t := time.NewTimer(n.f.opts.Timeout)
	defer t.Stop()
	for {
		ch := n.triesCh()
		if n.tried.Load() >= want {
			return
		}
		select {
		case <-ch:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		case <-n.f.ctx.Done():
			return
		}
	}
}

// triesCh is closed when the publisher next finishes a send.
func (n *Network) triesCh() <-chan struct{} {
	n.triesMu.Lock()
	defer n.triesMu.Unlock()
	if n.tries == nil {
		n.tries = make(chan struct{})
	}
	return n.tries
}

// finished records that the head moves up to upTo were sent (or failed).
func (n *Network) finished(upTo uint64) {
	n.tried.Store(upTo)
	n.triesMu.Lock()
	if n.tries != nil {
		close(n.tries)
		n.tries = nil
	}
	n.triesMu.Unlock()
}

// publishScript raises the network's highest head to ARGV[1] (hash
// ARGV[2]) and publishes the message ARGV[5] on KEYS[2] when it is higher
// than the key's, or always when ARGV[3] is 1 (a rewind, which replaces
// it); the key lives ARGV[4] ms after its last write. One round trip.
var publishScript = redis.NewScript(`
local cur = redis.call('HGET', KEYS[1], 'n')
if ARGV[3] ~= '1' and cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'n', ARGV[1], 'h', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', KEYS[2], ARGV[5])
return 1
`)

// publish sends the heads handed over, latest first, until the fleet closes.
func (n *Network) publish() {
	var sent uint64
	for {
		select {
		case <-n.f.ctx.Done():
			return
		case <-n.kick:
		}
		upTo := n.handed.Load() // before the heads are read: what they include
		failed := false
		if r := n.rewind.Swap(0); r != 0 {
			if n.send(r-1, true) {
				sent = r - 1
				n.next.Store(r - 1)
			} else {
				// Not taken (Redis away or slow): kept for the next try,
				// unless a newer rewind came meanwhile.
				n.rewind.CompareAndSwap(0, r)
				failed = true
			}
		}
		if v := n.next.Load(); v > sent && !failed {
			if n.send(v, false) {
				sent = v
			} else {
				failed = true
			}
		}
		n.failing.Store(failed)
		n.finished(upTo) // a failed send is retried later, nobody waits for it
		if failed {
			n.retryLater()
		}
	}
}

// retryLater kicks the publisher again after a pause: a head Redis did not
// take is sent again, not lost until the next head moves.
func (n *Network) retryLater() {
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-n.f.ctx.Done():
		return
	case <-t.C:
	}
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// retryPause is the wait before a head Redis did not take is sent again.
const retryPause = 100 * time.Millisecond

// send publishes one head; false when Redis did not take it.
func (n *Network) send(number uint64, rewound bool) bool {
	var hash common.Hash
	if p := n.pool.Load(); p != nil {
		hash, _ = (*p).Canonical(number)
	}
	ctx, cancel := context.WithTimeout(n.f.ctx, n.f.opts.Timeout)
	defer cancel()
	h := head{from: n.f.id, number: number, hash: hash, rewound: rewound}
	r := "0"
	if rewound {
		r = "1"
	}
	err := publishScript.Run(ctx, n.f.client, []string{n.f.key(n.name), n.f.channel(n.name)},
		number, hash.Hex(), r, n.f.opts.TTL.Milliseconds(), h.String()).Err()
	if err != nil && n.f.ctx.Err() == nil {
		slog.Debug("fleet head not published", "network", n.name, "head", number, "err", err)
		return false
	}
	return true
}

// load gives pool the fleet's highest head when a replica joins.
func (n *Network) load(pool Pool) {
	ctx, cancel := context.WithTimeout(n.f.ctx, n.f.opts.Timeout)
	defer cancel()
	v, err := n.f.client.HMGet(ctx, n.f.key(n.name), "n", "h").Result()
	if err != nil || len(v) != 2 {
		if err != nil && !errors.Is(err, redis.Nil) && n.f.ctx.Err() == nil {
			slog.Debug("fleet head not read", "network", n.name, "err", err)
		}
		return
	}
	ns, _ := v[0].(string)
	hs, _ := v[1].(string)
	num, err := strconv.ParseUint(ns, 10, 64)
	if err != nil {
		return
	}
	pool.PeerHead(num, common.HexToHash(hs), false)
}
