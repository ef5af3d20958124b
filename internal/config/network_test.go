package config

import (
	"strings"
	"testing"
	"time"
)

func TestValidateNetworks(t *testing.T) {
	evm := func(name string, hosts ...string) Network {
		return Network{Name: name, Hosts: hosts, Upstreams: []Upstream{{Name: "n", URL: "http://127.0.0.1:1"}}}
	}
	tests := []struct {
		name    string
		nets    []Network
		wantErr string // substring; "" means valid
	}{
		{"one default", []Network{evm("a")}, ""},
		{"default and hosts", []Network{evm("a"), evm("b", "b.example.com", "*.c.example.com")}, ""},
		{"two defaults", []Network{evm("a"), evm("b")}, "at most one may be the main listener's default"},
		{"duplicate name", []Network{evm("a", "x.example.com"), evm("a", "y.example.com")}, "is used by another network"},
		{"duplicate host", []Network{evm("a", "x.example.com"), evm("b", "x.example.com")}, "is also a host of network a"},
		{"bad host", []Network{evm("a", "Bad_Host")}, "networks[0].hosts[0]"},
		{"bad family", []Network{{Name: "a", Family: "solana", Upstreams: []Upstream{{URL: "embedded"}}}}, "networks[0].family"},
		{"starknet settings on evm", []Network{{Name: "a", Upstreams: []Upstream{{URL: "embedded"}}, Starknet: Starknet{PendingMode: "block"}}}, "networks[0].starknet"},
		{"bad pending mode", []Network{{Name: "a", Family: "starknet", Upstreams: []Upstream{{URL: "embedded"}}, Starknet: Starknet{PendingMode: "maybe"}}}, "pending_mode"},
		{"two embedded evm", []Network{{Name: "a", Upstreams: []Upstream{{URL: "embedded"}}}, {Name: "b", Hosts: []string{"b.example.com"}, Upstreams: []Upstream{{URL: "embedded"}}}}, "one per process"},
		{"listen clash", []Network{{Name: "a", Listen: "127.0.0.1:8545", Upstreams: []Upstream{{URL: "embedded"}}}}, "is also used by listen"},
		{"no upstream", []Network{{Name: "a"}}, "at least one upstream"},
		{"negative quarantine", []Network{{Name: "a", Upstreams: []Upstream{{URL: "embedded"}}, Verify: Verify{Quarantine: -time.Second}}}, "networks[0].verify.quarantine"},
		{"quarantine over a day", []Network{{Name: "a", Upstreams: []Upstream{{URL: "embedded"}}, Verify: Verify{Quarantine: 25 * time.Hour}}}, "networks[0].verify.quarantine"},
		{"quarantine", []Network{{Name: "a", Upstreams: []Upstream{{URL: "embedded"}}, Verify: Verify{Quarantine: time.Minute}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.Networks = tc.nets
			err := c.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestEffectiveNetworksDefaults(t *testing.T) {
	c := Defaults()
	if nets := c.EffectiveNetworks(); len(nets) != 2 || nets[1].Family != "starknet" || nets[1].Hosts[0] != StarknetLocalHost {
		t.Fatalf("embedded default: %+v", nets)
	}
	c.Upstream = "http://127.0.0.1:1"
	if nets := c.EffectiveNetworks(); len(nets) != 1 || nets[0].Upstreams[0].URL != c.Upstream {
		t.Fatalf("with an upstream: %+v", nets)
	}
}
