package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"github.com/nodegate/nodegate/jsonrpc"
)

// chainCheck keeps a pool's members on one chain: each member's chain id
// (PoolConfig.ChainIDMethod, the family's) must equal PoolConfig.ChainID or,
// when that is unset, its first member's (or, while the first member has
// not answered, the first member that did). It is the pool's Check, run
// at start and whenever a member comes back. A member that cannot answer
// the chain-id method is let through (logged), not kept out.
type chainCheck struct {
	network string
	method  string
	request []byte                       // the chain-id call (requests.go)
	numeric bool                         // the id is a quantity, compared as a decimal number
	norm    func(string) (string, error) // the family's rule, when given
	first   *Member                      // the first configured member

	mu   sync.Mutex
	want string // normalized chain id; "" until known
	from string // where want came from
}

func newChainCheck(pool string, cfg PoolConfig, request []byte, firstMember *Member) *chainCheck {
	c := &chainCheck{network: pool, method: cfg.ChainIDMethod, request: request, numeric: cfg.NumericChainID, norm: cfg.NormalizeChainID, first: firstMember}
	if cfg.ChainID != 0 && cfg.NumericChainID {
		c.want, c.from = strconv.FormatUint(cfg.ChainID, 10), "chain_id"
	}
	return c
}

// check is the pool's Check.
func (c *chainCheck) check(ctx context.Context, m *Member) error {
	got, err := c.idOf(ctx, m.Upstream)
	if err != nil {
		// A node that cannot say its chain id is not proven wrong: it
		// serves, and is checked again when it next comes back.
		slog.Warn("upstream chain id not known: not checked", "network", c.network, "upstream", m.Name(), "method", c.method, "err", err)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.want == "" {
		// The reference is the first member's chain id; when the first
		// member cannot say, the first member that can.
		c.want, c.from = got, m.Name()
		if m != c.first {
			if ref, err := c.idOf(ctx, c.first.Upstream); err == nil {
				c.want, c.from = ref, c.first.Name()
			} else {
				slog.Warn("first upstream's chain id not known: checking against another member's", "network", c.network, "upstream", m.Name(), "chain_id", got, "err", err)
			}
		}
	}
	if got != c.want {
		return fmt.Errorf("on chain id %s, not the network's %s (from %s): kept out of service", got, c.want, c.from)
	}
	return nil
}

// chainID is the chain id as a number (NumericChainID), 0 when unknown.
func (c *chainCheck) chainID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, _ := strconv.ParseUint(c.want, 10, 64)
	return n
}

// idOf asks u for its chain id, normalized: a decimal number for a
// numeric id, the id's lowercased text (a Starknet felt) otherwise.
func (c *chainCheck) idOf(ctx context.Context, u Upstream) (string, error) {
	out, err := u.Do(ctx, c.request)
	if err != nil {
		return "", err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return "", err
	}
	if resp.Err != nil {
		return "", errors.New(resp.Err.Message)
	}
	var s string
	if err := json.Unmarshal(resp.Result, &s); err != nil {
		return "", fmt.Errorf("chain id %s: %w", resp.Result, err)
	}
	if c.norm != nil {
		return c.norm(s)
	}
	s = strings.ToLower(s)
	if c.numeric {
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if err != nil {
			return "", fmt.Errorf("chain id %q: %w", s, err)
		}
		return strconv.FormatUint(n, 10), nil
	}
	return s, nil
}

// ChainID is the chain id the pool's members are checked against, as a
// number (PoolConfig.NumericChainID): the configured one, else the first
// member's once it answered; 0 when unknown or not checked.
func (p *Pool) ChainID() uint64 {
	if p.chainCheck == nil {
		return 0
	}
	return p.chainCheck.chainID()
}
