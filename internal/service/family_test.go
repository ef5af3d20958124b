package service

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestFamilies: every family a network may name is one value that answers
// everything buildNetwork asks of it: its method table, head and chain-id
// methods, whether it keeps final answers, and its stages (with the names
// the traces use), and the JSON-RPC versions it serves besides its default.
// A family config validation admits is one of them.
func TestFamilies(t *testing.T) {
	for _, tc := range []struct {
		config         string
		methods        methods.Family
		head, chainID  string
		numeric, cache bool
		stages         []string
		// versions: of a network of HTTP nodes, then of one served by the
		// embedded node or devnet alone.
		versions, embeddedVersions []string
	}{
		{"", methods.FamilyEVM, "", "eth_chainId", true, true, []string{"getLogsLimits", "filterLimits", "gasCap", "executionLimits"}, nil, nil},
		{"evm", methods.FamilyEVM, "", "eth_chainId", true, true, []string{"getLogsLimits", "filterLimits", "gasCap", "executionLimits"}, nil, nil},
		{"starknet", methods.FamilyStarknet, "starknet_blockNumber", "starknet_chainId", false, false, []string{"executionLimits", "pendingTransactions"}, nil, []string{"v0_8"}},
	} {
		t.Run("family "+tc.config, func(t *testing.T) {
			nc := config.Network{Name: "n", Family: tc.config, Upstreams: []config.Upstream{{URL: "http://127.0.0.1:1"}}}
			cfg := config.Ephemeral(t.TempDir())
			cfg.Networks = []config.Network{nc}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("config refuses family %q: %v", tc.config, err)
			}
			f, ok := families[tc.config]
			if !ok {
				t.Fatalf("no family %q", tc.config)
			}
			if f.methods() != tc.methods || f.headMethod() != tc.head || f.chainIDMethod() != tc.chainID || f.numericChainID() != tc.numeric || f.caches() != tc.cache {
				t.Fatalf("answers %s %q %q %v %v", f.methods(), f.headMethod(), f.chainIDMethod(), f.numericChainID(), f.caches())
			}
			pool := upstream.NewPool("n", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: upstream.Func{ID: "down",
				Fn: func(context.Context, []byte) ([]byte, error) { return nil, errors.New("down") }}})
			stages, err := f.stages(context.Background(), config.Config{}, nc, pool, admission.New(1))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range stages {
				names = append(names, s.Name())
			}
			if !slices.Equal(names, tc.stages) {
				t.Fatalf("stages %v, want %v", names, tc.stages)
			}
			embedded := nc
			embedded.Upstreams = []config.Upstream{{Name: "local", URL: config.EmbeddedURL}}
			if v, ev := f.versions(nc), f.versions(embedded); !slices.Equal(v, tc.versions) || !slices.Equal(ev, tc.embeddedVersions) {
				t.Fatalf("versions %v and, embedded, %v; want %v and %v", v, ev, tc.versions, tc.embeddedVersions)
			}
		})
	}
}
