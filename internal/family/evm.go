package family

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// EVM is the EVM family: Ethereum JSON-RPC nodes, the embedded node.
var EVM = register(Family{
	Kind:             familykind.EVM,
	Methods:          methods.FamilyEVM,
	NumericChainID:   true,
	NormalizeChainID: quantityChainID,
	FollowsNewHeads:  true,
	Caches:           true,
	BatchSize:        func(uc config.Upstream) int { return uc.BatchSize },
	Versions:         func(config.Network) []string { return nil },
	Member:           evmMember,
	Stages:           evmStages,
	Verify:           evmVerify,
	VerifyMore:       evmVerifyRoot,
})

// quantityChainID is an eth_chainId answer (a hex quantity) in decimal.
func quantityChainID(s string) (string, error) {
	s = strings.ToLower(s)
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		return "", fmt.Errorf("chain id %q: %w", s, err)
	}
	return strconv.FormatUint(n, 10), nil
}

// evmMember is an EVM node: over HTTP or WebSocket as its URL says, or
// the embedded node in process.
func evmMember(ctx context.Context, e Embedded, _ config.Network, uc config.Upstream, _ *methods.Table, _ string) (upstream.Upstream, error) {
	if uc.URL != config.EmbeddedURL {
		if wsURL(uc.URL) {
			return transport.NewWS(uc.URL, transport.WSOptions{})
		}
		return transport.NewHTTP(uc.URL)
	}
	n, err := e.Node(ctx)
	if err != nil {
		return nil, fmt.Errorf("embedded node: %w", err)
	}
	return transport.NewInProc(upstream.Func{ID: config.EmbeddedURL, Fn: n.Do, Heads: n.SubscribeHeads}, n.Server()), nil
}

// wsURL reports whether a configured node URL is a ws(s):// one.
func wsURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "ws" || u.Scheme == "wss")
}

// evmStages: the EVM family's limits, the head's gas limit for the gas
// cap and, on the embedded node, each key's share of this process's CPUs
// (e.Execution's turns).
func evmStages(_ context.Context, e Embedded, nc config.Network, pool *upstream.Pool) ([]pipeline.Stage, error) {
	evm := pipeline.EVM{Limits: e.Limits, Gas: pool} // the pool knows its head block's gas limit
	if servesEmbedded(nc) {
		evm.Execution = e.Execution
	}
	return evm.Stages(), nil
}
