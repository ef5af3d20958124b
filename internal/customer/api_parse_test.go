package customer

import (
	"testing"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
)

// TestParseBody: one JSON object with known fields only.
func TestParseBody(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"an object", `{"name":"a","networks":["devnet"],"secret":true}`, true},
		{"empty object", `{}`, true},
		{"unknown field", `{"plan":"enterprise"}`, false},
		{"two objects", `{} {}`, false},
		{"not an object", `[1]`, false},
		{"empty", ``, false},
		{"wrong type", `{"secret":"yes"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v apiNewKey
			err := parseBody([]byte(tc.in), &v)
			if (err == nil) != tc.ok || (err != nil && !accounts.IsInput(err)) {
				t.Fatalf("parseBody(%s) = %v", tc.in, err)
			}
		})
	}
}

// FuzzParseBody: any body is refused as input or decoded, never a panic,
// for each body the API takes.
func FuzzParseBody(f *testing.F) {
	f.Add([]byte(`{"name":"a","networks":["x"]}`))
	f.Add([]byte(`{"allowed_origins":["https://a.example"]}`))
	f.Add([]byte(`{"custom_percent":75,"webhook_url":"https://x.example"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []any{&apiNewKey{}, &keys.Patch{}, &apiAlertsPatch{}} {
			if err := parseBody(b, v); err != nil && !accounts.IsInput(err) {
				t.Fatalf("%q: not an input error: %v", b, err)
			}
		}
	})
}
