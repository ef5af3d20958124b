package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/servicetest"
)

// answerOf posts one call and returns the HTTP status and the answer.
func answerOf(t *testing.T, url, method, params string) (int, struct {
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
	}
}) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var a struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatalf("%s: %s: %v", method, out, err)
	}
	return resp.StatusCode, a
}

// TestOverridesRefusedWithContractAllowlist: with allowed_contracts=[A], a
// state override giving A new code would let eth_call run anything "at A";
// such calls, block overrides and eth_simulateV1 are refused with 403
// -32002, while the same calls pass for a key without the allowlist (the
// override really runs on the embedded node).
func TestOverridesRefusedWithContractAllowlist(t *testing.T) {
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

	obj := `{"from":"0x00000000000000000000000000000000000000cc","to":"` + a + `"}`
	// Code returning the word 1: PUSH1 1, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN.
	code := `{"` + a + `":{"code":"0x600160005260206000f3"}}`
	one := `"0x` + strings.Repeat("0", 63) + `1"`
	sim := `[{"blockStateCalls":[{"stateOverrides":` + code + `,"calls":[` + obj + `]}]},"latest"]`
	refused := []struct{ name, method, params string }{
		{"eth_call, state override", "eth_call", `[` + obj + `,"latest",` + code + `]`},
		{"eth_call, block override", "eth_call", `[` + obj + `,"latest",null,{"number":"0x1"}]`},
		{"eth_call, empty state override", "eth_call", `[` + obj + `,"latest",{}]`},
		{"eth_estimateGas, state override", "eth_estimateGas", `[` + obj + `,"latest",` + code + `]`},
		{"eth_estimateGas, block override", "eth_estimateGas", `[` + obj + `,"latest",null,{"time":"0x1"}]`},
		{"eth_createAccessList, state override", "eth_createAccessList", `[` + obj + `,"latest",` + code + `]`},
		{"eth_simulateV1", "eth_simulateV1", sim},
		{"eth_simulateV1 without overrides", "eth_simulateV1", `[{"blockStateCalls":[{"calls":[` + obj + `]}]},"latest"]`},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			st, got := answerOf(t, restricted, tc.method, tc.params)
			if st != http.StatusForbidden || got.Error == nil || got.Error.Code != -32002 {
				t.Fatalf("restricted key: HTTP %d %s %+v", st, got.Result, got.Error)
			}
			if st, got := answerOf(t, open, tc.method, tc.params); st != http.StatusOK || got.Error != nil {
				t.Fatalf("key without allowlist: HTTP %d %+v", st, got.Error)
			}
		})
	}
	// The override reaches the node for a key without an allowlist...
	if _, got := answerOf(t, open, "eth_call", `[`+obj+`,"latest",`+code+`]`); string(got.Result) != one {
		t.Fatalf("eth_call with the override, open key: %s %+v", got.Result, got.Error)
	}
	// ...and calls to A without overrides still pass the allowlist.
	for _, p := range []string{`[` + obj + `,"latest"]`, `[` + obj + `,"latest",null,null]`} {
		if st, got := answerOf(t, restricted, "eth_call", p); st != http.StatusOK || got.Error != nil || string(got.Result) != `"0x"` {
			t.Fatalf("eth_call %s, restricted key: HTTP %d %s %+v", p, st, got.Result, got.Error)
		}
	}
	if st, got := answerOf(t, restricted, "eth_estimateGas", `[`+obj+`]`); st != http.StatusOK || got.Error != nil {
		t.Fatalf("eth_estimateGas, restricted key: HTTP %d %+v", st, got.Error)
	}
}
