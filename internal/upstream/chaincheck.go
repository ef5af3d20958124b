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

	"github.com/ethereum/go-ethereum/common"
	"github.com/nodegate/nodegate/jsonrpc"
)

// chainCheck keeps a pool's members on one chain: each member's chain id
// (PoolConfig.ChainIDMethod, the family's) must equal PoolConfig.ChainID or,
// when that is unset, its first member's (or, while the first member has
// not answered, the first member that did); on families whose blocks have
// hashes (PoolConfig.HeadBlockMethod) its genesis block's hash must also
// equal the first member's (a chain started anew, or another chain with
// the same id). It is the pool's Check, run at start and whenever a member
// comes back. A member that cannot answer the chain-id method (or the
// genesis block) is let through (logged), not kept out.
type chainCheck struct {
	network string
	method  string
	request []byte                       // the chain-id call (requests.go)
	genReq  []byte                       // the genesis block's call (requests.go)
	numeric bool                         // the id is a quantity, compared as a decimal number
	norm    func(string) (string, error) // the family's rule, when given
	genesis bool                         // the genesis hash is checked too
	first   *Member                      // the first configured member

	mu  sync.Mutex
	id  reference // the normalized chain id
	gen reference // the genesis block's hash
}

// reference is a value members must have and where it came from ("" until known).
type reference struct{ value, from string }

func newChainCheck(pool string, cfg PoolConfig, req requests, firstMember *Member) *chainCheck {
	c := &chainCheck{network: pool, method: cfg.ChainIDMethod, request: req.chainID, genReq: req.genesis,
		numeric: cfg.NumericChainID, norm: cfg.NormalizeChainID, genesis: cfg.HeadBlockMethod != "", first: firstMember}
	if cfg.ChainID != 0 && cfg.NumericChainID {
		c.id = reference{strconv.FormatUint(cfg.ChainID, 10), "chain_id"}
	}
	return c
}

// check is the pool's Check.
func (c *chainCheck) check(ctx context.Context, m *Member) error {
	u := m.Upstream
	got, err := c.idOf(ctx, u)
	if err != nil {
		// A node that cannot say its chain id is not proven wrong: it
		// serves, and is checked again when it next comes back.
		slog.Warn("upstream chain id not known: not checked", "network", c.network, "upstream", m.Name(), "method", c.method, "err", err)
		return nil
	}
	want := c.reference(ctx, m, got, c.idOf, &c.id)
	if got != want.value {
		return fmt.Errorf("on chain id %s, not the network's %s (from %s): kept out of service", got, want.value, want.from)
	}
	if !c.genesis {
		return nil
	}
	gen, err := c.genesisOf(ctx, u)
	if err != nil {
		slog.Warn("upstream genesis block not known: not checked", "network", c.network, "upstream", m.Name(), "err", err)
		return nil
	}
	want = c.reference(ctx, m, gen, c.genesisOf, &c.gen)
	if gen != want.value {
		return fmt.Errorf("on chain id %s with genesis block %s, not the network's %s (from %s): kept out of service", got, gen, want.value, want.from)
	}
	return nil
}

// reference is the value a member's (got, from m) must equal: the one
// known in *r (read under the lock), else the first member's, asked with
// ask outside the lock (m's own when m is the first member, or when the
// first cannot say), then kept in *r unless another check kept one
// meanwhile.
func (c *chainCheck) reference(ctx context.Context, m *Member, got string, ask func(context.Context, Upstream) (string, error), r *reference) reference {
	c.mu.Lock()
	known := *r
	c.mu.Unlock()
	if known.value != "" {
		return known
	}
	ref := reference{got, m.Name()}
	if m != c.first {
		if v, err := ask(ctx, c.first.Upstream); err == nil {
			ref = reference{v, c.first.Name()}
		} else {
			slog.Warn("first upstream's chain not known: checking against another member's", "network", c.network, "upstream", m.Name(), "value", got, "err", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.value == "" {
		*r = ref
	}
	return *r
}

// genesisOf asks u for its genesis block's hash.
func (c *chainCheck) genesisOf(ctx context.Context, u Upstream) (string, error) {
	var genesis struct {
		Hash *common.Hash `json:"hash"`
	}
	if err := askBlock(ctx, u.Do, c.genReq, "genesis block", &genesis); err != nil {
		return "", err
	}
	if genesis.Hash == nil {
		return "", errors.New("genesis block: no hash")
	}
	return genesis.Hash.Hex(), nil
}

// chainID is the chain id as a number (NumericChainID), 0 when unknown.
func (c *chainCheck) chainID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, _ := strconv.ParseUint(c.id.value, 10, 64)
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
