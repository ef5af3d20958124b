package upstream

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// gasLimit is what the pool knows of its head block's gas limit, for the
// gas cap (EVM networks). It is asked for lazily, through the pool's own
// members and retry loop (the head block, requests.go): the first
// use waits for the answer; later uses get the known value and, once the
// pool's head has moved and a head interval has passed, start one refresh
// in the background. Networks that never ask (Starknet) never fetch it.
type gasLimit struct {
	value      atomic.Uint64
	at         atomic.Uint64 // the pool's best head when value was fetched
	checked    atomic.Int64  // unix nanoseconds of the last attempt, 0 = never
	refreshing atomic.Bool
	first      sync.Mutex // one synchronous first fetch at a time
}

// GasLimit is the head block's gas limit (pipeline.GasLimiter), 0 while it
// is not known (no member answers): the caller then leaves the gas to the
// node's own cap.
func (p *Pool) GasLimit() uint64 {
	g := &p.gas
	last, v := g.checked.Load(), g.value.Load()
	if last != 0 && time.Now().UnixNano()-last < int64(p.cfg.HeadInterval) || v != 0 && g.at.Load() == p.BestHead() {
		return v // asked lately, or the head has not moved since
	}
	if v != 0 {
		if g.refreshing.CompareAndSwap(false, true) {
			go func() {
				defer g.refreshing.Store(false)
				p.refreshGasLimit()
			}()
		}
		return v
	}
	g.first.Lock()
	defer g.first.Unlock()
	if last := g.checked.Load(); last != 0 && time.Now().UnixNano()-last < int64(p.cfg.HeadInterval) {
		return g.value.Load() // another caller just tried
	}
	p.refreshGasLimit()
	return g.value.Load()
}

func (p *Pool) refreshGasLimit() {
	ctx, cancel := context.WithTimeout(context.Background(), min(p.cfg.AttemptTimeout, 5*time.Second))
	defer cancel()
	head := p.BestHead()
	v, err := p.fetchGasLimit(ctx)
	p.gas.checked.Store(time.Now().UnixNano())
	if err != nil {
		slog.Warn("head block gas limit unknown", "pool", p.id, "err", err)
		return
	}
	p.gas.value.Store(v)
	p.gas.at.Store(head)
}

var errNoHead = errors.New("no head block")

func (p *Pool) fetchGasLimit(ctx context.Context) (uint64, error) {
	var b struct {
		GasLimit *hexutil.Uint64 `json:"gasLimit"`
	}
	if err := askBlock(ctx, p.Do, p.req.headBlock, "head block", &b); err != nil {
		return 0, err
	}
	if b.GasLimit == nil || *b.GasLimit == 0 {
		return 0, errNoHead
	}
	return uint64(*b.GasLimit), nil
}
