package devnet

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/starknet"
)

// TestDevnetAccounts: devnet_getPredeployedAccounts lists the dev accounts
// in starknet-devnet's shape, each key pair a Stark key pair and each
// address the one its class, key and salt give; the account class is
// answered at each address and by its hash, in both versions, its hash
// the class hash of what is answered; anything else is 20 or 28.
func TestDevnetAccounts(t *testing.T) {
	d := newTestDevnet(t, Config{Accounts: 3})
	var accounts []struct {
		Balance string `json:"initial_balance"`
		Address string `json:"address"`
		Public  string `json:"public_key"`
		Private string `json:"private_key"`
	}
	raw := mustResult(t, call(t, d, "devnet_getPredeployedAccounts", "[]"))
	if err := json.Unmarshal(raw, &accounts); err != nil || len(accounts) != 3 {
		t.Fatalf("accounts %s: %v", raw, err)
	}
	classHash := unquote(t, mustResult(t, call(t, d, "starknet_getClassHashAt", `["latest","`+accounts[0].Address+`"]`)))
	if classHash != d.AccountClassHash().String() {
		t.Fatalf("class hash %s, want %s", classHash, d.AccountClassHash())
	}
	seen := map[string]bool{}
	for i, a := range accounts {
		pub, err := starknet.PublicKey(starknet.MustFelt(a.Private))
		if err != nil || pub.String() != a.Public || a.Balance != InitialBalance || seen[a.Private] {
			t.Fatalf("account %d %+v: public key %s %v", i, a, pub, err)
		}
		seen[a.Private] = true
		if addr := starknet.ContractAddress(starknet.Felt{}, pub, starknet.MustFelt(classHash), []starknet.Felt{pub}); addr.String() != a.Address {
			t.Fatalf("account %d address %s, want %s", i, a.Address, addr)
		}
		if d.Accounts()[i].Address.String() != a.Address {
			t.Fatalf("Accounts()[%d] = %s", i, d.Accounts()[i].Address)
		}
	}
	for _, tc := range []struct {
		name   string
		callIn func(t *testing.T, d *Devnet, method, params string) rpcResult
		tag    string
	}{{"0.10", call, "pre_confirmed"}, {"0.8", call08, "pending"}} {
		t.Run(tc.name, func(t *testing.T) {
			at := mustResult(t, tc.callIn(t, d, "starknet_getClassAt", `{"block_id":"`+tc.tag+`","contract_address":"`+accounts[2].Address+`"}`))
			byHash := mustResult(t, tc.callIn(t, d, "starknet_getClass", `[{"block_number":0},"`+classHash+`"]`))
			if string(at) != string(byHash) {
				t.Fatalf("getClassAt %s\ngetClass %s", at, byHash)
			}
			if h := decodeClass(t, at).Hash(); h.String() != classHash {
				t.Fatalf("the answered class hashes to %s, not %s", h, classHash)
			}
			var cls struct {
				ABI string `json:"abi"`
			}
			if err := json.Unmarshal(at, &cls); err != nil || !strings.Contains(cls.ABI, `"type": "interface"`) || !strings.Contains(cls.ABI, `"name": "__execute__"`) {
				t.Fatalf("class ABI %q: %v", cls.ABI, err)
			}
			for _, e := range []struct {
				name, method, params string
				code                 int
			}{
				{"not deployed", "starknet_getClassAt", `["latest","0x123"]`, CodeContractNotFound},
				{"hash not deployed", "starknet_getClassHashAt", `["latest","0x123"]`, CodeContractNotFound},
				{"unknown class", "starknet_getClass", `["latest","0x123"]`, CodeClassHashNotFound},
				{"unknown block", "starknet_getClassAt", `[{"block_number":9},"` + accounts[0].Address + `"]`, starknet.CodeBlockNotFound},
				{"bad address", "starknet_getClassHashAt", `["latest","0xzz"]`, -32602},
				{"missing address", "starknet_getClassAt", `["latest"]`, -32602},
				{"with balance", "devnet_getPredeployedAccounts", `{"with_balance":true}`, -32602},
			} {
				if r := tc.callIn(t, d, e.method, e.params); r.Error == nil || r.Error.Code != e.code {
					t.Fatalf("%s: %s %+v, want code %d", e.name, r.Result, r.Error, e.code)
				}
			}
		})
	}
}

// decodeClass reads a CONTRACT_CLASS answer back into a SierraClass.
func decodeClass(t *testing.T, raw json.RawMessage) *starknet.SierraClass {
	t.Helper()
	type ep struct {
		Selector starknet.Felt `json:"selector"`
		Idx      uint64        `json:"function_idx"`
	}
	var c struct {
		Program []starknet.Felt `json:"sierra_program"`
		Version string          `json:"contract_class_version"`
		EPs     struct {
			Constructor []ep `json:"CONSTRUCTOR"`
			External    []ep `json:"EXTERNAL"`
			L1Handler   []ep `json:"L1_HANDLER"`
		} `json:"entry_points_by_type"`
		ABI string `json:"abi"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.Version != "0.1.0" {
		t.Fatalf("class %s: %v", raw, err)
	}
	conv := func(in []ep) []starknet.SierraEntryPoint {
		var out []starknet.SierraEntryPoint
		for _, e := range in {
			out = append(out, starknet.SierraEntryPoint{Selector: e.Selector, FunctionIdx: e.Idx})
		}
		return out
	}
	return &starknet.SierraClass{Program: c.Program, Constructor: conv(c.EPs.Constructor), External: conv(c.EPs.External), L1Handler: conv(c.EPs.L1Handler), ABI: c.ABI}
}

func TestPythonSpacing(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "separators", in: `[{"a":1,"b":[2,3]}]`, want: `[{"a": 1, "b": [2, 3]}]`},
		{name: "whitespace dropped", in: "{\n  \"a\" :  [ ]\n}", want: `{"a": []}`},
		{name: "strings untouched", in: `["a:b,c", "core::felt252"]`, want: `["a:b,c", "core::felt252"]`},
		{name: "escaped quote", in: `["x\",y", 1]`, want: `["x\",y", 1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pythonSpacing(tt.in); got != tt.want {
				t.Fatalf("pythonSpacing(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
