package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestPrunedWordings: the answers with which nodes say they no longer hold
// an old block's state or history are read as such, each of the table's
// wordings, and are node faults (another member may hold the block);
// answers about the request are not.
func TestPrunedWordings(t *testing.T) {
	cases := []struct {
		name string
		code int
		msg  string
		want methods.Needs
	}{
		{"geth hash scheme", -32000, "missing trie node 8f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8 (path ) <nil>", methods.NeedsState},
		{"geth path scheme", -32000, "historical state 4c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d is not available", methods.NeedsState},
		{"geth path scheme layer", -32000, "state 0x4c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d is not available", methods.NeedsState},
		{"state not available", -32000, "state not available for block 0x10", methods.NeedsState},
		{"nethermind", -32002, "No state available for block 0x10", methods.NeedsState},
		{"reth", -32000, "state at block #16 is pruned", methods.NeedsState},
		{"besu", -32000, "Missing state for block 16", methods.NeedsState},
		{"erigon", -32000, "state history pruned for block 16", methods.NeedsState},
		{"provider archive", -32000, "this request requires archive access", methods.NeedsState},
		{"provider archive node", -32000, "historical data needs an archive node", methods.NeedsState},
		{"provider plan", -32000, "your project ID does not have access to archive state", methods.NeedsState},
		{"nodegate state", CodePrunedHistory, "no upstream serves state at block 0x10 (earliest 0x3e8)", methods.NeedsState},
		{"geth history", CodePrunedHistory, "pruned history unavailable", methods.NeedsHistory},
		{"history pruned", -32000, "history pruned before block 15537394", methods.NeedsHistory},
		{"history has been pruned", -32000, "requested history has been pruned", methods.NeedsHistory},
		{"history expired", -32000, "history expired (EIP-4444)", methods.NeedsHistory},
		{"block pruned", -32000, "block #16 is pruned", methods.NeedsHistory},
		{"receipts pruned", -32000, "receipts of block 16 are pruned", methods.NeedsHistory},
		{"logs pruned", -32000, "logs before block 16 are pruned", methods.NeedsHistory},
		{"nodegate logs", CodePrunedHistory, "no upstream serves logs at block 0x10 (earliest 0x64)", methods.NeedsHistory},
		{"code 4444 alone", CodePrunedHistory, "unavailable", methods.NeedsHistory},
		{"revert", jsonrpc.CodeReverted, "execution reverted: missing state", methods.NeedsNothing},
		{"invalid params", jsonrpc.CodeInvalidParams, "state at block 16 is pruned", methods.NeedsNothing},
		{"header not found", -32000, "header not found", methods.NeedsNothing},
		{"request timed out", -32002, "request timed out", methods.NeedsNothing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := &jsonrpc.Error{Code: tc.code, Message: tc.msg}
			if got := prunedKind(e); got != tc.want {
				t.Fatalf("prunedKind(%d %q) = %v, want %v", tc.code, tc.msg, got, tc.want)
			}
			if tc.want != methods.NeedsNothing && !IsNodeFaultAnswer(e) {
				t.Fatalf("%q is not a node fault: another member would not be asked", tc.msg)
			}
		})
	}
}

// TestOldBlockOf: the block a call needs old data at, and its kind.
func TestOldBlockOf(t *testing.T) {
	table := methods.NewTable(methods.FamilyEVM)
	cases := []struct {
		name, method, params string
		want                 oldBlock
	}{
		{"balance", "eth_getBalance", `["0x00000000000000000000000000000000000000aa","0x10"]`, oldBlock{methods.NeedsState, 0x10}},
		{"balance latest", "eth_getBalance", `["0x00000000000000000000000000000000000000aa","latest"]`, oldBlock{}},
		{"balance by hash", "eth_getBalance", `["0x00000000000000000000000000000000000000aa",{"blockHash":"0x01"}]`, oldBlock{}},
		{"balance by number object", "eth_getBalance", `["0x00000000000000000000000000000000000000aa",{"blockNumber":"0x7"}]`, oldBlock{methods.NeedsState, 7}},
		{"call earliest", "eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"earliest"]`, oldBlock{methods.NeedsState, 0}},
		{"logs range", "eth_getLogs", `[{"fromBlock":"0x5","toBlock":"0x9"}]`, oldBlock{methods.NeedsHistory, 5}},
		{"logs to latest", "eth_getLogs", `[{"fromBlock":"0x5"}]`, oldBlock{methods.NeedsHistory, 5}},
		{"logs no from", "eth_getLogs", `[{"toBlock":"0x9"}]`, oldBlock{}},
		{"logs by hash", "eth_getLogs", `[{"blockHash":"0x01","fromBlock":"0x5"}]`, oldBlock{}},
		{"receipts", "eth_getBlockReceipts", `["0x20"]`, oldBlock{methods.NeedsHistory, 0x20}},
		{"header", "eth_getHeaderByNumber", `["0x20"]`, oldBlock{}},
		{"no params", "eth_getBalance", ``, oldBlock{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := table.Lookup(tc.method)
			k := kindOf(r)
			params := json.RawMessage(tc.params)
			if got := k.oldBlockOf(params, k.blockOf(params)); got != tc.want {
				t.Fatalf("oldBlockOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// FuzzOldBlockOf: whatever a client's params hold, reading the old block
// they need never panics, and a numbered fromBlock is read as its number.
func FuzzOldBlockOf(f *testing.F) {
	f.Add(`[{"fromBlock":"0x5","toBlock":"0x9"}]`, uint64(5))
	f.Add(`[{"fromBlock":"earliest"}]`, uint64(0))
	f.Add(`["0x00000000000000000000000000000000000000aa",{"blockNumber":"0x7"}]`, uint64(7))
	logs := kindOf(ruleOf("eth_getLogs"))
	balance := kindOf(ruleOf("eth_getBalance"))
	f.Fuzz(func(t *testing.T, params string, n uint64) {
		raw := json.RawMessage(params)
		_ = logs.oldBlockOf(raw, logs.blockOf(raw))
		_ = balance.oldBlockOf(raw, balance.blockOf(raw))
		filter := json.RawMessage(`[{"fromBlock":"` + hexutil.EncodeUint64(n) + `"}]`)
		if got := logs.oldBlockOf(filter, logs.blockOf(filter)); got != (oldBlock{methods.NeedsHistory, n}) {
			t.Fatalf("fromBlock %d read as %+v", n, got)
		}
	})
}

// BenchmarkFloorRouting is what the floors add to each call (floor.go):
// reading the old block it needs and marking the members whose floor is
// above it, for an eth_call at a block number, an eth_getLogs range and a
// call that needs nothing old, over a pool of three members one of which
// is pruned.
func BenchmarkFloorRouting(b *testing.B) {
	p := NewPool("bench", PoolConfig{}, MemberConfig{Name: "a"}, MemberConfig{Name: "b"},
		MemberConfig{Name: "pruned", StateFrom: Floor{From: 1000, Set: true}, LogsFrom: Floor{From: 1000, Set: true}})
	calls := []struct{ name, method, params string }{
		{"call", "eth_call", `[{"to":"0x0101010101010101010101010101010101010101","data":"0x00"},"0x1b4"]`},
		{"getLogs", "eth_getLogs", `[{"fromBlock":"0x1b0","toBlock":"0x1b4","address":"0x0101010101010101010101010101010101010101"}]`},
		{"getTransactionByHash", "eth_getTransactionByHash", `["0x` + strings.Repeat("cd", 32) + `"]`},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			rule := ruleOf(c.method)
			params := json.RawMessage(c.params)
			var tried [3]bool
			b.ReportAllocs()
			for b.Loop() {
				k := kindOf(rule)
				old := k.oldBlockOf(params, k.blockOf(params))
				tried = [3]bool{}
				if p.skipBelowFloor(old, tried[:]) != nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
