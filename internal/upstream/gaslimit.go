package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// Head tracks a network's head block, as much as the gateway needs of it:
// its gas limit, for the gas cap. It asks eth_getBlockByNumber("latest",
// false) lazily: the first use waits for the answer, later uses get the
// known value and, when it is older than the refresh period, start one
// refresh in the background. There is no goroutine to stop.
type Head struct {
	up      Upstream
	every   time.Duration
	timeout time.Duration

	gasLimit   atomic.Uint64
	checked    atomic.Int64 // unix nanoseconds of the last attempt, 0 = never
	refreshing atomic.Bool
	first      sync.Mutex // one synchronous first fetch at a time
}

// NewHead tracks the head of up, refreshing at most once per every.
func NewHead(up Upstream, every time.Duration) *Head {
	if every <= 0 {
		every = time.Second
	}
	return &Head{up: up, every: every, timeout: 5 * time.Second}
}

// GasLimit is the head block's gas limit, 0 while it is not known (the node
// cannot be reached): the caller then leaves the gas to the node's own cap.
func (h *Head) GasLimit() uint64 {
	now := time.Now().UnixNano()
	last := h.checked.Load()
	if last != 0 && now-last < int64(h.every) {
		return h.gasLimit.Load()
	}
	if g := h.gasLimit.Load(); g != 0 {
		if h.refreshing.CompareAndSwap(false, true) {
			go func() {
				defer h.refreshing.Store(false)
				h.refresh()
			}()
		}
		return g
	}
	h.first.Lock()
	defer h.first.Unlock()
	if last := h.checked.Load(); last != 0 && time.Now().UnixNano()-last < int64(h.every) {
		return h.gasLimit.Load() // another caller just tried
	}
	h.refresh()
	return h.gasLimit.Load()
}

func (h *Head) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	g, err := h.fetch(ctx)
	h.checked.Store(time.Now().UnixNano())
	if err != nil {
		slog.Warn("head block gas limit unknown", "upstream", h.up.Name(), "err", err)
		return
	}
	h.gasLimit.Store(g)
}

var headRequest = []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}`)

var errNoHead = errors.New("no head block")

func (h *Head) fetch(ctx context.Context) (uint64, error) {
	out, err := h.up.Do(ctx, headRequest)
	if err != nil {
		return 0, err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return 0, fmt.Errorf("head block: %w", err)
	}
	if resp.Err != nil {
		return 0, fmt.Errorf("head block: %w", resp.Err)
	}
	var b struct {
		GasLimit *hexutil.Uint64 `json:"gasLimit"`
	}
	if err := json.Unmarshal(resp.Result, &b); err != nil {
		return 0, fmt.Errorf("head block: %w", err)
	}
	if b.GasLimit == nil || *b.GasLimit == 0 {
		return 0, errNoHead
	}
	return uint64(*b.GasLimit), nil
}
