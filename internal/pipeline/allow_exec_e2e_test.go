package pipeline_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/servicetest"
)

// TestRunningCodeRefusedWithContractAllowlist: with allowed_contracts=[A],
// eth_fillTransaction runs its transaction's code like eth_estimateGas, so
// it is checked like it: init code that reads another account's state and
// reverts with it (which a key without the allowlist gets answered, the
// state read) is refused with 403 -32002, as are a call with EIP-7702
// authorizations and a method the table does not list; a call to A passes.
func TestRunningCodeRefusedWithContractAllowlist(t *testing.T) {
	const a = "0x00000000000000000000000000000000000000aa"
	s := servicetest.Start(t, servicetest.Config(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	created, err := s.KeyManager.Create(ctx, keys.CreateParams{Plan: config.PlanTeam, Settings: keys.Patch{AllowedContracts: &[]string{a}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keys.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	restricted, open := s.URL()+"/v3/"+created.Key, s.URL()+"/v3/"+s.GeneratedKey

	// Init code: PUSH20 <funded account> BALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 REVERT.
	dev := evmnode.DevAccounts(2)
	funded := strings.ToLower(dev[0].Address.Hex()[2:])
	readsState := `{"from":"` + dev[1].Address.Hex() + `","data":"0x73` + funded + `3160005260206000fd"}`
	if st, got := answerOf(t, open, "eth_fillTransaction", `[`+readsState+`]`); st != http.StatusOK || got.Error == nil || got.Error.Code != 3 {
		t.Fatalf("key without allowlist: HTTP %d %s %+v, want the revert carrying the balance", st, got.Result, got.Error)
	}
	auth := `[{"chainId":"0x539","address":"` + a + `","nonce":"0x0","yParity":"0x0","r":"0x1","s":"0x1"}]`
	for _, tc := range []struct{ name, method, params string }{
		{"fillTransaction running init code", "eth_fillTransaction", `[` + readsState + `]`},
		{"fillTransaction to another contract", "eth_fillTransaction", `[{"to":"0x00000000000000000000000000000000000000bb"}]`},
		{"eth_call with authorizations", "eth_call", `[{"to":"` + a + `","authorizationList":` + auth + `},"latest"]`},
		{"createAccessList with authorizations", "eth_createAccessList", `[{"to":"` + a + `","authorizationList":` + auth + `},"latest"]`},
		{"unlisted method", "eth_callMany", `[[{"transactions":[{"to":"` + a + `"}]}]]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if st, got := answerOf(t, restricted, tc.method, tc.params); st != http.StatusForbidden || got.Error == nil || got.Error.Code != -32002 {
				t.Fatalf("restricted key: HTTP %d %s %+v", st, got.Result, got.Error)
			}
		})
	}
	if st, got := answerOf(t, restricted, "eth_fillTransaction", `[{"from":"`+dev[1].Address.Hex()+`","to":"`+a+`"}]`); st != http.StatusOK || got.Error != nil {
		t.Fatalf("eth_fillTransaction to the allowed contract: HTTP %d %+v", st, got.Error)
	}
}
