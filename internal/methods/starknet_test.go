package methods

import (
	"strings"
	"testing"
)

// TestFamilies checks both directions: EVM methods on a starknet network and
// rollup/starknet methods on an EVM network answer -32601.
func TestFamilies(t *testing.T) {
	evm := NewTable(FamilyEVM)
	sn := NewTable(FamilyStarknet)
	dev := NewTable(FamilyStarknet)
	dev.EnableDevnet()
	evmDev := NewTable(FamilyEVM)
	evmDev.EnableDevnet()
	tests := []struct {
		name       string
		table      *Table
		method     string
		found      bool
		idempotent bool
	}{
		{name: "rollup method on starknet", table: sn, method: "rollup_pendingTransactions", found: true, idempotent: true},
		{name: "upstream name on starknet", table: sn, method: "starknet_pendingTransactions", found: true, idempotent: true},
		{name: "starknet read forwarded", table: sn, method: "starknet_getBlockWithTxs", found: true, idempotent: true},
		{name: "starknet write not retried", table: sn, method: "starknet_addInvokeTransaction", found: true},
		{name: "eth spec method on starknet", table: sn, method: "eth_call"},
		{name: "eth forwarded method on starknet", table: sn, method: "eth_blockNumber"},
		{name: "unknown eth method on starknet", table: sn, method: "eth_getProof"},
		{name: "net on starknet", table: sn, method: "net_version"},
		{name: "devnet without devnet", table: sn, method: "devnet_createBlock"},
		{name: "devnet enabled", table: dev, method: "devnet_createBlock", found: true},
		{name: "devnet accounts enabled", table: dev, method: "devnet_getPredeployedAccounts", found: true},
		{name: "devnet accounts without devnet", table: sn, method: "devnet_getPredeployedAccounts"},
		{name: "rollup method on evm", table: evm, method: "rollup_pendingTransactions"},
		{name: "starknet method on evm", table: evm, method: "starknet_pendingTransactions"},
		{name: "starknet read on evm", table: evm, method: "starknet_chainId"},
		{name: "devnet never on evm", table: evmDev, method: "devnet_createBlock"},
		{name: "evm still serves eth", table: evm, method: "eth_call", found: true, idempotent: true},
		{name: "bad name on starknet", table: sn, method: "starknet_a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.table.Lookup(tt.method)
			if !tt.found {
				if err == nil || err.Code != -32601 || !strings.Contains(err.Message, tt.method) {
					t.Fatalf("Lookup(%s) = %+v, %v; want -32601", tt.method, r, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Lookup(%s): %v", tt.method, err)
			}
			if r.Idempotent != tt.idempotent || r.Family != tt.table.family {
				t.Fatalf("rule %+v", r)
			}
		})
	}
}

func TestPendingParams(t *testing.T) {
	sn := NewTable(FamilyStarknet)
	for _, m := range []string{"rollup_pendingTransactions", "starknet_pendingTransactions"} {
		r, err := sn.Lookup(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{`[]`} {
			if _, err := r.Check([]byte(p)); err != nil {
				t.Fatalf("%s %s: %v", m, p, err)
			}
		}
		for _, p := range []string{`["pending"]`, `[null]`, `[{}]`} {
			_, err := r.Check([]byte(p))
			if err == nil || err.Code != -32602 || err.Message != "too many arguments, want at most 0" {
				t.Fatalf("%s %s: %v", m, p, err)
			}
		}
	}
}

// TestStarknetClientFlowRules: the methods of starknet.js's standard flow
// are reads (retried on another node) with their own costs on a starknet
// network, and unknown on an EVM one.
func TestStarknetClientFlowRules(t *testing.T) {
	sn, evm := NewTable(FamilyStarknet), NewTable(FamilyEVM)
	for _, tc := range []struct {
		method  string
		credits int
	}{
		{"starknet_getNonce", 80}, {"starknet_getTransactionStatus", 80}, {"starknet_getTransactionReceipt", 80},
		{"starknet_getBlockWithTxHashes", 80}, {"starknet_getBlockWithReceipts", 160}, {"starknet_estimateFee", 240}, {"starknet_call", 160},
	} {
		t.Run(tc.method, func(t *testing.T) {
			r, err := sn.Lookup(tc.method)
			if err != nil || !r.Idempotent || r.Credits != tc.credits || Label(tc.method) != tc.method {
				t.Fatalf("rule %+v, %v", r, err)
			}
			if _, err := r.Check([]byte(`{"block_id":"pending","contract_address":"0x1"}`)); err != nil {
				t.Fatalf("named params refused at the gateway: %v", err)
			}
			if _, err := evm.Lookup(tc.method); err == nil || err.Code != -32601 {
				t.Fatalf("on an EVM network: %v", err)
			}
		})
	}
}
