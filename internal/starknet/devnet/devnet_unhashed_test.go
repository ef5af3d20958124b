package devnet

import (
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/starknet"
	"github.com/nodegate/nodegate/internal/starknet/starknettest"
)

// TestRefusedNonceNotHashed: an account transaction refused for its nonce
// is not hashed (a large one costs most of a second of CPU to hash): a
// nonce ahead of the sender's, another transaction on a used nonce, and
// a kept transaction sent again — answered as a duplicate, whether it is
// pending or in a block, and whatever its signature (the hash does not
// cover it) — cost no hash.
func TestRefusedNonceNotHashed(t *testing.T) {
	d := newTestDevnet(t, Config{})
	first := starknettest.BigV3(1) // sender 0x1, nonce 0
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+first+"]"))
	resigned := strings.Replace(first, `"signature":["0x1","0x2"]`, `"signature":["0x3","0x4"]`, 1)
	ahead := strings.Replace(first, `"nonce":"0x0"`, `"nonce":"0x5"`, 1)
	other := strings.Replace(first, `"calldata":["0x7`, `"calldata":["0x6`, 1)
	cases := []struct {
		name, tx string
		code     int
		sealed   bool // after devnet_createBlock
	}{
		{"nonce ahead", ahead, CodeInvalidTxNonce, false},
		{"another transaction on a used nonce", other, CodeInvalidTxNonce, false},
		{"sent again while pending", first, starknet.CodeDuplicateTx, false},
		{"sent again with another signature", resigned, starknet.CodeDuplicateTx, false},
		{"sent again once in a block", first, starknet.CodeDuplicateTx, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sealed {
				mustResult(t, call(t, d, "devnet_createBlock", "[]"))
			}
			before := d.hashed.Load()
			r := call(t, d, "starknet_addInvokeTransaction", "["+tc.tx+"]")
			if r.Error == nil || r.Error.Code != tc.code {
				t.Fatalf("answered %s %+v, want error %d", r.Result, r.Error, tc.code)
			}
			if got := d.hashed.Load() - before; got != 0 {
				t.Fatalf("%d transactions hashed for a refusal, want 0", got)
			}
		})
	}
	next := strings.Replace(first, `"nonce":"0x0"`, `"nonce":"0x1"`, 1)
	mustResult(t, call(t, d, "starknet_addInvokeTransaction", "["+next+"]")) // the next nonce is taken
}
