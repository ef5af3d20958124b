package upstream_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// chainMember is a member on chain id (its answer to method) at head 0x10.
func chainMember(name, method, id string) upstream.MemberConfig {
	return upstream.MemberConfig{Upstream: upstream.Func{ID: name, Fn: func(_ context.Context, body []byte) ([]byte, error) {
		result := `"0x10"`
		if strings.Contains(string(body), `"`+method+`"`) {
			result = `"` + id + `"`
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`), nil
	}}}
}

// TestPoolChecksChainID: the pool asks each member for its chain id by the
// method it is given (the family's) and keeps a member on another chain
// out of service: against the configured id, else the first member's; a
// numeric id compared as a number, any other as its lowercased text.
func TestPoolChecksChainID(t *testing.T) {
	tests := []struct {
		name         string
		cfg          upstream.PoolConfig
		first, other string
		otherServes  bool
		chainID      uint64
	}{
		{"same chain", upstream.PoolConfig{ChainIDMethod: "eth_chainId", NumericChainID: true}, "0x1", "0x01", true, 1},
		{"another chain", upstream.PoolConfig{ChainIDMethod: "eth_chainId", NumericChainID: true}, "0x1", "0x5", false, 1},
		{"not the configured chain", upstream.PoolConfig{ChainIDMethod: "eth_chainId", NumericChainID: true, ChainID: 5}, "0x1", "0x5", true, 5},
		{"felt as text", upstream.PoolConfig{ChainIDMethod: "starknet_chainId"}, "0x534E5F5345504F4C4941", "0x534e5f5345504f4c4941", true, 0},
		{"another felt", upstream.PoolConfig{ChainIDMethod: "starknet_chainId"}, "0x534e5f5345504f4c4941", "0x534e5f4d41494e", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.HeadInterval, tc.cfg.ProbeInterval = 20*time.Millisecond, 20*time.Millisecond
			p := startPool(t, tc.cfg, chainMember("first", tc.cfg.ChainIDMethod, tc.first), chainMember("other", tc.cfg.ChainIDMethod, tc.other))
			testenv.WaitFor(t, 10*time.Second, "both members checked", func() bool {
				st := p.Status()
				return (st[0].Head == 0x10 || st[0].LastError != "") && (st[1].Head == 0x10 || st[1].LastError != "")
			})
			st := p.Status()
			if st[1].Healthy != tc.otherServes {
				t.Fatalf("other member healthy %v (%s), want %v", st[1].Healthy, st[1].LastError, tc.otherServes)
			}
			if st[0].Healthy != (tc.cfg.ChainID == 0) {
				t.Fatalf("first member healthy %v (%s)", st[0].Healthy, st[0].LastError)
			}
			if got := p.ChainID(); got != tc.chainID {
				t.Fatalf("ChainID %d, want %d", got, tc.chainID)
			}
		})
	}
}

// genesisMember is a member on chain id 1 whose genesis block has hash
// genesis, at head 0x10.
func genesisMember(name, genesis string) upstream.MemberConfig {
	return upstream.MemberConfig{Upstream: upstream.Func{ID: name, Fn: func(_ context.Context, body []byte) ([]byte, error) {
		result := `"0x10"`
		switch {
		case strings.Contains(string(body), `"eth_chainId"`):
			result = `"0x1"`
		case strings.Contains(string(body), `"0x0"`):
			result = `{"number":"0x0","hash":"` + genesis + `"}`
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`), nil
	}}}
}

// TestPoolChecksGenesis: on a family whose blocks have hashes, a member
// with the network's chain id but another genesis block is kept out of
// service, its reason naming both genesis hashes.
func TestPoolChecksGenesis(t *testing.T) {
	g1, g2 := "0x"+strings.Repeat("11", 32), "0x"+strings.Repeat("22", 32)
	for _, tc := range []struct {
		name        string
		other       string
		otherServes bool
	}{
		{"same genesis", g1, true},
		{"another genesis", g2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := upstream.PoolConfig{ChainIDMethod: "eth_chainId", NumericChainID: true, HeadBlockMethod: "eth_getBlockByNumber",
				HeadInterval: 20 * time.Millisecond, ProbeInterval: 20 * time.Millisecond}
			p := startPool(t, cfg, genesisMember("first", g1), genesisMember("other", tc.other))
			testenv.WaitFor(t, 10*time.Second, "both members checked", func() bool {
				st := p.Status()
				return (st[0].Head == 0x10 || st[0].LastError != "") && (st[1].Head == 0x10 || st[1].LastError != "")
			})
			st := p.Status()
			if st[1].Healthy != tc.otherServes {
				t.Fatalf("other member healthy %v (%s), want %v", st[1].Healthy, st[1].LastError, tc.otherServes)
			}
			if !tc.otherServes && (!strings.Contains(st[1].LastError, g1) || !strings.Contains(st[1].LastError, g2)) {
				t.Errorf("reason %q does not name both genesis blocks", st[1].LastError)
			}
			if !st[0].Healthy {
				t.Fatalf("first member out: %s", st[0].LastError)
			}
		})
	}
}
