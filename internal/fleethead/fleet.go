package fleethead

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"
)

// Options configure a Fleet.
type Options struct {
	// RedisURL is the fleet's Redis (redis:// or rediss://).
	RedisURL string
	// Prefix namespaces the keys and channels (default "nodegate").
	Prefix string
	// Timeout bounds one round trip (default 100ms).
	Timeout time.Duration
	// TTL is how long the highest head's key lives after its last rise
	// (default 1m), so that a fleet restarted on another chain does not
	// start from the old chain's head.
	TTL time.Duration
}

// Pool is what a Fleet needs of a network's pool (upstream.Pool).
type Pool interface {
	Canonical(n uint64) (common.Hash, bool)
	PeerHead(n uint64, hash common.Hash, rewound bool)
}

// Fleet is one replica's side of the fleet's heads.
type Fleet struct {
	opts   Options
	id     string // this replica, to skip its own messages
	client *redis.Client
	pubsub *redis.PubSub
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	trips  atomic.Int64 // Redis commands sent (RoundTrips)

	mu   sync.Mutex
	nets map[string]*Network
}

// New connects to Redis (lazily: a Redis that is away is retried by the
// client) and starts reading the fleet's heads.
func New(opts Options) (*Fleet, error) {
	if opts.Prefix == "" {
		opts.Prefix = "nodegate"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 100 * time.Millisecond
	}
	if opts.TTL <= 0 {
		opts.TTL = time.Minute
	}
	ro, err := redis.ParseURL(opts.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("fleet heads: redis url: %w", err)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	f := &Fleet{opts: opts, id: hex.EncodeToString(id[:]), client: redis.NewClient(ro), nets: map[string]*Network{}}
	f.client.AddHook(countHook{&f.trips})
	f.ctx, f.cancel = context.WithCancel(context.Background())
	f.pubsub = f.client.PSubscribe(f.ctx, f.channel("*"))
	f.wg.Go(f.read)
	return f, nil
}

func (f *Fleet) key(network string) string     { return f.opts.Prefix + ":fleethead:" + network }
func (f *Fleet) channel(network string) string { return f.opts.Prefix + ":fleethead-heads:" + network }

// RoundTrips is how many Redis commands this replica sent (its one
// subscription excluded): a measure of what sharing heads costs.
func (f *Fleet) RoundTrips() int64 { return f.trips.Load() }

// Join shares the heads of network's pool: the pool's head moves are
// published (give the returned Network to the pool's ShareHeads) and the
// other replicas' heads are given to the pool. Joining a network again
// (a reload's new pool) replaces its pool.
func (f *Fleet) Join(network string, pool Pool) *Network {
	f.mu.Lock()
	n, ok := f.nets[network]
	if !ok {
		n = &Network{f: f, name: network, kick: make(chan struct{}, 1)}
		f.nets[network] = n
	}
	n.pool.Store(&pool)
	f.mu.Unlock()
	if !ok {
		f.wg.Go(n.publish)
	}
	f.wg.Go(func() { n.load(pool) })
	return n
}

// Close stops reading and publishing.
func (f *Fleet) Close() error {
	f.cancel()
	err := f.pubsub.Close()
	f.wg.Wait()
	return errors.Join(err, f.client.Close())
}

// read hands each head another replica published to its network's pool;
// each time the subscription is made (at start, and again after Redis was
// away) every network reads the fleet's highest head, which may have
// risen meanwhile.
func (f *Fleet) read() {
	ch := f.pubsub.ChannelWithSubscriptions()
	for {
		var msg any
		select {
		case <-f.ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			msg = m
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			f.mu.Lock()
			for _, n := range f.nets {
				pool := *n.pool.Load()
				f.wg.Go(func() { n.load(pool) })
			}
			f.mu.Unlock()
		case *redis.Message:
			f.deliver(m)
		}
	}
}

// deliver gives the pool of a message's network the head another
// replica published.
func (f *Fleet) deliver(m *redis.Message) {
	h, err := parseHead(m.Payload)
	if err != nil {
		slog.Debug("fleet head message", "channel", m.Channel, "err", err)
		return
	}
	if h.from == f.id {
		return
	}
	f.mu.Lock()
	n := f.nets[strings.TrimPrefix(m.Channel, f.channel(""))]
	f.mu.Unlock()
	if n != nil {
		(*n.pool.Load()).PeerHead(h.number, h.hash, h.rewound)
	}
}

// head is one published head.
type head struct {
	from    string
	number  uint64
	hash    common.Hash
	rewound bool
}

// String is the message: "from number hash r" (r: 1 rewound, 0 not).
func (h head) String() string {
	r := "0"
	if h.rewound {
		r = "1"
	}
	return h.from + " " + strconv.FormatUint(h.number, 10) + " " + h.hash.Hex() + " " + r
}

// parseHead reads a message String wrote.
func parseHead(s string) (head, error) {
	f := strings.Fields(s)
	if len(f) != 4 || (f[3] != "0" && f[3] != "1") || len(f[0]) == 0 || len(f[0]) > 64 {
		return head{}, fmt.Errorf("fleet head %.100q: want \"from number hash 0|1\"", s)
	}
	n, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return head{}, fmt.Errorf("fleet head %.100q: number: %w", s, err)
	}
	if len(f[2]) != 66 || !strings.HasPrefix(f[2], "0x") {
		return head{}, fmt.Errorf("fleet head %.100q: want a 32-byte 0x hash", s)
	}
	b, err := hex.DecodeString(f[2][2:])
	if err != nil {
		return head{}, fmt.Errorf("fleet head %.100q: hash: %w", s, err)
	}
	return head{from: f[0], number: n, hash: common.BytesToHash(b), rewound: f[3] == "1"}, nil
}
