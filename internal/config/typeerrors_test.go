package config

import (
	"strings"
	"testing"
)

// TestTypeErrorsNameTheField: a value of the wrong type is refused with
// its field's path and the form the field wants, not a Go type.
func TestTypeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"duration as a number", "plans:\n  core:\n    call_timeout: 30\n", `field plans.core.call_timeout (line 3): got 30, want a duration like "30s"`},
		{"duration in a flow mapping", "plans:\n  core: { rate_per_second: 5, call_timeout: 30 }\n", `field plans.core.call_timeout (line 2): got 30, want a duration like "30s"`},
		{"number as words", "plans:\n  core:\n    daily_credits: lots\n", `field plans.core.daily_credits (line 3): got lots, want a whole number`},
		{"bool", "no_starknet: maybe\n", `field no_starknet (line 1): got maybe, want true or false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg Config
			err := Decode([]byte(tc.yaml), &cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzTypeErrors: any YAML decodes or is refused, never a panic.
func FuzzTypeErrors(f *testing.F) {
	f.Add("plans:\n  core: { call_timeout: 30 }\n")
	f.Add("networks:\n  - name: [1]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		var cfg Config
		_ = Decode([]byte(doc), &cfg)
	})
}
