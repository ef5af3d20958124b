package methods

import "testing"

// TestNeedsNameABlock: every method that needs old state or history names
// the block it needs by a param or a log filter, and its rule carries the
// need (a method the table lacks would be a dead entry).
func TestNeedsNameABlock(t *testing.T) {
	table := NewTable(FamilyEVM)
	for name, need := range needsOf {
		t.Run(name, func(t *testing.T) {
			r, e := table.Lookup(name)
			if e != nil || r.Unlisted {
				t.Fatalf("%s is not in the table: %v", name, e)
			}
			if r.Needs != need {
				t.Fatalf("rule needs %v, table %v", r.Needs, need)
			}
			if _, ok := r.Block.Param(); !ok && r.Block != BlockLogFilter {
				t.Fatalf("%s needs %v but names no block (%d)", name, need, r.Block)
			}
		})
	}
}

// TestNeedsOfMethods: the needs of the methods the pool routes by floor.
func TestNeedsOfMethods(t *testing.T) {
	table := NewTable(FamilyEVM)
	cases := []struct {
		method string
		want   Needs
	}{
		{"eth_getBalance", NeedsState},
		{"eth_call", NeedsState},
		{"eth_getStorageAt", NeedsState},
		{"eth_getLogs", NeedsHistory},
		{"eth_getBlockReceipts", NeedsHistory},
		{"eth_getBlockByNumber", NeedsHistory},
		{"eth_getHeaderByNumber", NeedsNothing}, // headers are never pruned
		{"eth_blockNumber", NeedsNothing},
		{"eth_getTransactionReceipt", NeedsNothing}, // by hash: no block named
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			r, e := table.Lookup(tc.method)
			if e != nil {
				t.Fatal(e)
			}
			if r.Needs != tc.want {
				t.Fatalf("needs %v, want %v", r.Needs, tc.want)
			}
		})
	}
}
