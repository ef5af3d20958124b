package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// errNoChainIDMethod: the pool was not told how to ask for a chain id.
var errNoChainIDMethod = errors.New("chain id: no chain-id method configured")

// Chain is the chain the pool's healthy members serve, as
// "<chain id>/<genesis hash>": learned with the finalized block
// (PoolConfig.TrackFinalized), for what is kept about a chain beyond one
// answer (the cache's keys). It is "" while a healthy member's is unknown
// or two healthy members disagree: nothing is then known of the chain.
func (p *Pool) Chain() string {
	var chain *string
	for _, m := range p.members {
		if !m.Healthy() {
			continue
		}
		c := m.chain.Load()
		if c == nil || chain != nil && *c != *chain {
			return ""
		}
		chain = c
	}
	if chain == nil {
		return ""
	}
	return *chain
}

// chainOf asks m for its chain id (PoolConfig.ChainIDMethod) and its
// genesis block's hash.
func (p *Pool) chainOf(ctx context.Context, m *Member) (string, error) {
	if p.cfg.ChainIDMethod == "" {
		return "", errNoChainIDMethod
	}
	out, err := m.Upstream.Do(ctx, p.req.chainID)
	if err != nil {
		return "", err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return "", fmt.Errorf("chain id: %w", err)
	}
	if resp.Err != nil {
		return "", fmt.Errorf("chain id: %w", resp.Err)
	}
	var id hexutil.Big
	if err := json.Unmarshal(resp.Result, &id); err != nil {
		return "", fmt.Errorf("chain id %.100s: %w", resp.Result, err)
	}
	var genesis struct {
		Hash *common.Hash `json:"hash"`
	}
	if err := askBlock(ctx, m.Upstream.Do, p.req.genesis, "genesis block", &genesis); err != nil {
		return "", err
	}
	if genesis.Hash == nil {
		return "", errors.New("genesis block: no hash")
	}
	return id.ToInt().String() + "/" + genesis.Hash.Hex(), nil
}
