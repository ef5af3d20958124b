package methods_test

import (
	"encoding/json"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
)

// TestWithDefaults: the block docs/spec.md defaults to "latest" is sent as
// "latest" when absent or null; everything else is kept as it came.
func TestWithDefaults(t *testing.T) {
	const addr, slot = `"0x0000000000000000000000000000000000000001"`, `"0x0"`
	for _, tc := range []struct {
		name, method, params, want string
	}{
		{"storage without block", "eth_getStorageAt", `[` + addr + `,` + slot + `]`, `[` + addr + `,` + slot + `,"latest"]`},
		{"storage null block", "eth_getStorageAt", `[` + addr + `, ` + slot + `, null]`, `[` + addr + `,` + slot + `,"latest"]`},
		{"storage with block", "eth_getStorageAt", `[` + addr + `,` + slot + `,"0x1"]`, ""},
		{"estimate without block", "eth_estimateGas", `[{"to":` + addr + `}]`, `[{"to":` + addr + `},"latest"]`},
		{"estimate null block, overrides kept", "eth_estimateGas", `[{"to":` + addr + `},null,{}]`, `[{"to":` + addr + `},"latest",{}]`},
		{"estimate with block", "eth_estimateGas", `[{"to":` + addr + `},"pending"]`, ""},
		{"call has no default", "eth_call", `[{"to":` + addr + `},"latest"]`, ""},
		{"no rule of args", "eth_chainId", `[]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule, err := methods.NewTable(methods.FamilyEVM).Lookup(tc.method)
			if err != nil {
				t.Fatal(err)
			}
			parsed, perr := rule.Check([]byte(tc.params))
			if perr != nil {
				t.Fatalf("check: %v", perr)
			}
			got, changed := rule.WithDefaults([]byte(tc.params), parsed)
			if tc.want == "" {
				if changed || string(got) != tc.params {
					t.Fatalf("changed to %s", got)
				}
				return
			}
			if !changed || string(got) != tc.want {
				t.Fatalf("got %s (changed %v), want %s", got, changed, tc.want)
			}
		})
	}
}

// FuzzWithDefaults: whatever params pass the check, the params with their
// defaults are valid JSON that passes it too, with no absent default left.
func FuzzWithDefaults(f *testing.F) {
	f.Add("eth_getStorageAt", `["0x0000000000000000000000000000000000000001","0x0"]`)
	f.Add("eth_estimateGas", `[{"to":"0x0000000000000000000000000000000000000001"},null,{}]`)
	f.Add("eth_getStorageAt", ` [ "0x0000000000000000000000000000000000000001" , "0x0" , null ] `)
	table := methods.NewTable(methods.FamilyEVM)
	f.Fuzz(func(t *testing.T, method, params string) {
		rule, err := table.Lookup(method)
		if err != nil {
			return
		}
		parsed, perr := rule.Check([]byte(params))
		if perr != nil {
			return
		}
		got, changed := rule.WithDefaults([]byte(params), parsed)
		if !changed {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("%s: %q became invalid JSON %q", method, params, got)
		}
		again, perr := rule.Check(got)
		if perr != nil {
			t.Fatalf("%s: %q became %q, refused: %v", method, params, got, perr)
		}
		if _, changed := rule.WithDefaults(got, again); changed {
			t.Fatalf("%s: %q: defaults still absent in %q", method, params, got)
		}
	})
}
