package family

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestFamilies: every family a network may name is one value that answers
// everything the service's buildNetwork asks of it: its method table, head
// and chain-id methods, whether it keeps final answers and follows
// newHeads, its stages (with the names the traces use), and the JSON-RPC
// versions it serves besides its default. A family config validation
// admits is one of them.
func TestFamilies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config         string
		methods        methods.Family
		head, chainID  string
		numeric, cache bool
		newHeads       bool
		stages         []string
		// versions: of a network of HTTP nodes, then of one served by the
		// embedded node or devnet alone.
		versions, embeddedVersions []string
	}{
		{"", methods.FamilyEVM, "eth_blockNumber", "eth_chainId", true, true, true, []string{"getLogsLimits", "filterLimits", "gasCap", "executionLimits"}, nil, nil},
		{"evm", methods.FamilyEVM, "eth_blockNumber", "eth_chainId", true, true, true, []string{"getLogsLimits", "filterLimits", "gasCap", "executionLimits"}, nil, nil},
		{"starknet", methods.FamilyStarknet, "starknet_blockNumber", "starknet_chainId", false, false, false, []string{"executionLimits", "pendingTransactions"}, nil, []string{"v0_8"}},
	} {
		t.Run("family "+tc.config, func(t *testing.T) {
			nc := config.Network{Name: "n", Family: tc.config, Upstreams: []config.Upstream{{URL: "http://127.0.0.1:1"}}}
			cfg := config.Ephemeral(t.TempDir())
			cfg.Networks = []config.Network{nc}
			if err := cfg.Validate(); err != nil {
				t.Fatalf("config refuses family %q: %v", tc.config, err)
			}
			f := Of(tc.config)
			if f.Methods != tc.methods || f.HeadMethod != tc.head || f.ChainIDMethod != tc.chainID || f.NumericChainID != tc.numeric || f.Caches != tc.cache || f.FollowsNewHeads != tc.newHeads {
				t.Fatalf("answers %s %q %q %v %v %v", f.Methods, f.HeadMethod, f.ChainIDMethod, f.NumericChainID, f.Caches, f.FollowsNewHeads)
			}
			pool := upstream.NewPool("n", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: upstream.Func{ID: "down",
				Fn: func(context.Context, []byte) ([]byte, error) { return nil, errors.New("down") }}})
			stages, err := f.Stages(context.Background(), Embedded{Execution: admission.New(1)}, nc, pool)
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
			if v, ev := f.Versions(nc), f.Versions(embedded); !slices.Equal(v, tc.versions) || !slices.Equal(ev, tc.embeddedVersions) {
				t.Fatalf("versions %v and, embedded, %v; want %v and %v", v, ev, tc.versions, tc.embeddedVersions)
			}
		})
	}
}

// TestKindsAreFamilies: familykind.All, the one list of families, and the
// families this package's files make agree: every kind has its family
// (found by Of, with that very kind and all its parts) and every family
// made is one of the kinds (config validates against familykind.Names;
// the service builds from Of).
func TestKindsAreFamilies(t *testing.T) {
	t.Parallel()
	if len(families) != len(familykind.All) {
		t.Fatalf("%d families made, %d kinds", len(families), len(familykind.All))
	}
	for _, k := range familykind.All {
		f := Of(k.Name)
		if f.Kind != k {
			t.Errorf("kind %s's family is %+v", k.Name, f.Kind)
		}
		if f.NormalizeChainID == nil || f.BatchSize == nil || f.Versions == nil || f.Member == nil || f.Stages == nil {
			t.Errorf("family %s lacks a part", k.Name)
		}
	}
	if !slices.Equal(Names(), []string{"evm", "starknet"}) || Of("").Name != "evm" || Of("unknown").Name != "evm" {
		t.Fatalf("names %v, default %s, unknown %s", Names(), Of("").Name, Of("unknown").Name)
	}
}

// TestNormalizeChainID: members' chain ids compare as the family reads
// them: an EVM quantity as its number, whatever its case and zeros; a
// Starknet felt as its lowercase text.
func TestNormalizeChainID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		f        Family
		in, want string
		bad      bool
	}{
		{"EVM", EVM, "0x539", "1337", false},
		{"EVM upper case, leading zeros", EVM, "0X0539", "1337", false},
		{"EVM not a quantity", EVM, "SN_MAIN", "", true},
		{"Starknet felt", Starknet, "0x534E5F5345504F4C4941", "0x534e5f5345504f4c4941", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f.NormalizeChainID(tc.in)
			if (err != nil) != tc.bad || got != tc.want {
				t.Fatalf("%q: %q, %v", tc.in, got, err)
			}
		})
	}
}
