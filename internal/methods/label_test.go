package methods

import "testing"

func TestLabel(t *testing.T) {
	tests := []struct {
		name, method, want string
	}{
		{"rule of the spec", "eth_getLogs", "eth_getLogs"},
		{"standard forwarded name", "eth_getBalance", "eth_getBalance"},
		{"starknet rule", "starknet_addInvokeTransaction", "starknet_addInvokeTransaction"},
		{"devnet rule", "devnet_createBlock", "devnet_createBlock"},
		{"made-up eth name", "eth_madeUp12345", LabelUnknown},
		{"refused namespace", "admin_peers", LabelUnknown},
		{"empty", "", LabelInvalid},
		{"bad characters", "eth_get\"Logs", LabelInvalid},
		{"invalid utf-8", "eth_\xff", LabelInvalid},
		{"too long", string(make([]byte, 200)), LabelInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Label(tt.method); got != tt.want {
				t.Errorf("Label(%q) = %q, want %q", tt.method, got, tt.want)
			}
		})
	}
}

func FuzzLabel(f *testing.F) {
	for _, s := range []string{"eth_call", "eth_x", "", "\xff", "starknet_getNonce"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, method string) {
		got := Label(method)
		if _, ok := known[got]; got != LabelUnknown && got != LabelInvalid && !ok {
			t.Fatalf("Label(%q) = %q, outside the fixed set", method, got)
		}
	})
}
