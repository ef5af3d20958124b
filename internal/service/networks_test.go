package service

import (
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

const netKey = "0123456789abcdef0123456789abcdef"

// TestDefaultServesBothFamilies: the embedded default serves the EVM dev
// chain on the main listener and the Starknet devnet at starknet.localhost.
func TestDefaultServesBothFamilies(t *testing.T) {
	cfg := config.Ephemeral(t.TempDir())
	cfg.APIKeys = []string{netKey}
	svc := start(t, cfg)
	url := svc.URL() + "/v3/" + netKey
	tests := []struct {
		name, host, method, params string
		wantResult                 string
		wantCode                   int
	}{
		{"evm chain id", "", "eth_chainId", "[]", `"0x539"`, 0},
		{"rollup method on the EVM network", "", "rollup_pendingTransactions", "[]", "", -32601},
		{"starknet chain id by host", "starknet.localhost", "starknet_chainId", "[]", `"0x534e5f4445564e4554"`, 0},
		{"host with port and upper case", "StarkNet.LocalHost:8545", "starknet_chainId", "[]", `"0x534e5f4445564e4554"`, 0},
		{"rollup pending", "starknet.localhost", "rollup_pendingTransactions", "[]", `[]`, 0},
		{"rollup pending, named empty params", "starknet.localhost", "rollup_pendingTransactions", "{}", `[]`, 0},
		{"EVM method on the rollup network", "starknet.localhost", "eth_blockNumber", "[]", "", -32601},
		{"EVM spec method on the rollup network", "starknet.localhost", "eth_getTransactionReceipt", `["0x` + strings.Repeat("00", 32) + `"]`, "", -32601},
		{"named params on the EVM network", "", "eth_blockNumber", "{}", "", -32602},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := testenv.Call(t, url, tc.method, tc.params, "Host", tc.host)
			if tc.wantCode != 0 {
				if a.Error == nil || a.Error.Code != tc.wantCode {
					t.Fatalf("got %s %+v, want code %d", a.Result, a.Error, tc.wantCode)
				}
				return
			}
			if a.Error != nil || string(a.Result) != tc.wantResult {
				t.Fatalf("got %s %+v, want %s", a.Result, a.Error, tc.wantResult)
			}
		})
	}
}

// TestHostRoutingAndOwnListeners: two EVM networks (one by host name, one
// on a listener of its own) and a starknet network by wildcard host; an
// unknown host is refused when no network is the default.
func TestHostRoutingAndOwnListeners(t *testing.T) {
	up := startNodeInProcess(t)
	cfg := config.Ephemeral(t.TempDir())
	cfg.APIKeys = []string{netKey}
	cfg.Networks = []config.Network{
		{Name: "mainnet", Family: "evm", Hosts: []string{"mainnet.example.com"}, Upstreams: []config.Upstream{{Name: "node", URL: up}}},
		{Name: "testnet", Family: "evm", Listen: "127.0.0.1:0", Upstreams: []config.Upstream{{Name: "local", URL: config.EmbeddedURL}}},
		{Name: "rollup", Family: "starknet", Hosts: []string{"*.starknet.example.com"}, Upstreams: []config.Upstream{{Name: "dev", URL: config.EmbeddedURL}},
			Starknet: config.Starknet{Devnet: config.Devnet{ChainID: "SN_TEST"}}},
	}
	svc := start(t, cfg)
	main := svc.URL() + "/v3/" + netKey
	own := svc.NetworkURL("testnet")
	if own == "" {
		t.Fatal("testnet has no listener of its own")
	}
	tests := []struct {
		name, url, host, method string
		wantResult              string
		wantStatus              int
	}{
		{"by host", main, "mainnet.example.com", "eth_chainId", `"0xc72dd9d5e883e"`, 200},
		{"by wildcard host", main, "eu.starknet.example.com", "starknet_chainId", `"0x534e5f54455354"`, 200},
		{"wildcard needs a subdomain", main, "starknet.example.com", "starknet_chainId", "", 404},
		{"unknown host refused", main, "other.example.com", "eth_chainId", "", 404},
		{"own listener", own + "/v3/" + netKey, "", "eth_chainId", `"0x539"`, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := testenv.Call(t, tc.url, tc.method, "[]", "Host", tc.host)
			if a.Status != tc.wantStatus {
				t.Fatalf("HTTP %d, want %d (%+v)", a.Status, tc.wantStatus, a.Error)
			}
			if tc.wantResult != "" && string(a.Result) != tc.wantResult {
				t.Fatalf("got %s %+v, want %s", a.Result, a.Error, tc.wantResult)
			}
		})
	}
}

// startNodeInProcess serves the conformance chain over HTTP in process.
func startNodeInProcess(t *testing.T) string {
	t.Helper()
	cfg := config.Ephemeral(t.TempDir())
	cfg.NoStarknet = true
	cfg.Node.ChainDir = chainDir
	cfg.APIKeys = []string{netKey}
	svc := start(t, cfg)
	return svc.URL() + "/v3/" + netKey // a nodegate is a fine upstream for another nodegate
}
