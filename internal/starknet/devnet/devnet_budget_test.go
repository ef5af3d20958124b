package devnet

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/starknet/starknettest"
)

// TestDevnetByteBudgets: the pending pool and the kept blocks are bounded
// in bytes: a pool without room refuses with -32005 and says why; blocks
// past KeepBytes are dropped, oldest first, with their transactions; a
// new sender past MaxAccounts is refused.
func TestDevnetByteBudgets(t *testing.T) {
	t.Run("pending pool", func(t *testing.T) {
		d := newTestDevnet(t, Config{MaxPendingBytes: 2 << 20})
		accepted := 0
		for i := range 5 {
			r := call(t, d, "starknet_addInvokeTransaction", "["+starknettest.BigV3(i+1)+"]")
			if r.Error == nil {
				accepted++
				continue
			}
			if r.Error.Code != -32005 || !strings.Contains(r.Error.Message, "bytes used") {
				t.Fatalf("tx %d: %+v", i, r.Error)
			}
		}
		if accepted != 2 || d.pendingBytes > 2<<20 {
			t.Fatalf("%d accepted, %d bytes pending; want 2 within 2 MiB", accepted, d.pendingBytes)
		}
		mustResult(t, call(t, d, "devnet_createBlock", "[]"))
		mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+starknettest.BigV3(100)+"]")) // room again
	})
	t.Run("kept blocks", func(t *testing.T) {
		d := newTestDevnet(t, Config{KeepBytes: 3 << 20})
		var first string
		for i := range 8 {
			r := mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+starknettest.BigV3(i+1)+"]"))
			if i == 0 {
				first = string(r)
			}
			mustResult(t, call(t, d, "devnet_createBlock", "[]"))
		}
		kept := 0
		for _, b := range d.blocks {
			kept += b.bytes
		}
		if kept > 3<<20 || len(d.blocks) != 3 {
			t.Fatalf("%d blocks kept, %d bytes; want 3 within 3 MiB", len(d.blocks), kept)
		}
		var h struct {
			Hash string `json:"transaction_hash"`
		}
		_ = json.Unmarshal([]byte(first), &h)
		if r := call(t, d, "starknet_getTransactionByHash", `["`+h.Hash+`"]`); r.Error == nil {
			t.Fatal("the first transaction is still kept")
		}
	})
	t.Run("accounts", func(t *testing.T) {
		d := newTestDevnet(t, Config{MaxAccounts: 2})
		for i := range 3 {
			tx := strings.Replace(validV1, `"sender_address":"0x123"`, fmt.Sprintf(`"sender_address":"0x%x"`, i+1), 1)
			r := call(t, d, "starknet_addInvokeTransaction", "["+tx+"]")
			if (i < 2) != (r.Error == nil) {
				t.Fatalf("sender %d: %s %+v", i, r.Result, r.Error)
			}
		}
		tx := strings.Replace(validV1, `"sender_address":"0x123"`, `"sender_address":"0x1"`, 1)
		tx = strings.Replace(tx, `"nonce":"0x0"`, `"nonce":"0x1"`, 1)
		mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+tx+"]")) // a known sender still may
	})
}

// TestRefusedBeforeHashed: a transaction the pending pool has no room
// for, in transactions or in bytes, is refused before it is hashed
// (hashing costs CPU in proportion to its felts: 12,288 in one BigV3).
func TestRefusedBeforeHashed(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"by count", Config{MaxPending: 1}, "devnet pending pool is full (1 transactions)"},
		{"by bytes", Config{}, "bytes used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newTestDevnet(t, tc.cfg)
			mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+starknettest.BigV3(1)+"]"))
			if tc.cfg.MaxPending == 0 { // room for a few bytes more than the first
				d.cfg.MaxPendingBytes = d.pendingBytes + 1000
			}
			r := call(t, d, "starknet_addInvokeTransaction", "["+starknettest.BigV3(2)+"]")
			if r.Error == nil || !strings.Contains(r.Error.Message, tc.want) {
				t.Fatalf("with the pool full: %+v", r.Error)
			}
			if got := d.hashed.Load(); got != 1 {
				t.Fatalf("%d transactions hashed, want 1 (the accepted one)", got)
			}
		})
	}
}
