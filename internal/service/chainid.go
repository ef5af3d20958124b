package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/family"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// chainCheck keeps a network's members on one chain: each member's chain
// id (eth_chainId, starknet_chainId) must equal the network's chain_id or,
// when that is unset, its first member's (or, while the first member has
// not answered, the first member that did). It is the pool's Check, run
// at start and whenever a member comes back. A member that cannot answer
// the chain-id method is let through (logged), not kept out.
type chainCheck struct {
	network string
	fam     family.Family     // its chain-id method and how answers compare
	first   upstream.Upstream // the first configured member

	mu   sync.Mutex
	want string // normalized chain id; "" until known
	from string // where want came from
}

func newChainCheck(nc config.Network, fam family.Family, firstMember upstream.Upstream) *chainCheck {
	c := &chainCheck{network: nc.Name, fam: fam, first: firstMember}
	if nc.ChainID != 0 && fam.NumericChainID {
		c.want, c.from = strconv.FormatUint(nc.ChainID, 10), "chain_id"
	}
	return c
}

// check is the pool's Check.
func (c *chainCheck) check(ctx context.Context, u upstream.Upstream) error {
	got, err := chainIDOf(ctx, u, c.fam)
	if err != nil {
		// A node that cannot say its chain id is not proven wrong: it
		// serves, and is checked again when it next comes back.
		slog.Warn("upstream chain id not known: not checked", "network", c.network, "upstream", u.Name(), "method", c.fam.ChainIDMethod, "err", err)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.want == "" {
		// The reference is the first member's chain id; when the first
		// member cannot say, the first member that can.
		c.want, c.from = got, u.Name()
		if u.Name() != c.first.Name() { // (an upstream.Func is not comparable)
			if ref, err := chainIDOf(ctx, c.first, c.fam); err == nil {
				c.want, c.from = ref, c.first.Name()
			} else {
				slog.Warn("first upstream's chain id not known: checking against another member's", "network", c.network, "upstream", u.Name(), "chain_id", got, "err", err)
			}
		}
	}
	if got != c.want {
		return fmt.Errorf("on chain id %s, not the network's %s (from %s): kept out of service", got, c.want, c.from)
	}
	return nil
}

// chainID is the network's chain id as a number (EVM), 0 when unknown.
func (c *chainCheck) chainID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, _ := strconv.ParseUint(c.want, 10, 64)
	return n
}

// chainIDOf asks u for its chain id, normalized by fam: a decimal number
// for a hex quantity, the felt's hex text otherwise.
func chainIDOf(ctx context.Context, u upstream.Upstream, fam family.Family) (string, error) {
	out, err := u.Do(ctx, jsonrpc.AppendRequest(nil, 1, fam.ChainIDMethod, json.RawMessage("[]")))
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
	return fam.NormalizeChainID(s)
}
