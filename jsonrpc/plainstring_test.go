package jsonrpc

import (
	"encoding/json"
	"testing"
)

var plainStringCases = []struct {
	name, raw string
	fast      bool // read without encoding/json
}{
	{"method", `"eth_getTransactionByHash"`, true},
	{"empty", `""`, true},
	{"escape", `"eth_\u0063all"`, false},
	{"escaped quote", `"a\"b"`, false},
	{"non-ASCII", `"eth_ça"`, false},
	{"control character", "\"a\tb\"", false},
	{"not a string", `12`, false},
	{"unterminated", `"abc`, false},
}

// TestPlainString: the fast path reads what encoding/json reads, to the
// same string, and leaves everything else to it.
func TestPlainString(t *testing.T) {
	t.Parallel()
	for _, tc := range plainStringCases {
		t.Run(tc.name, func(t *testing.T) {
			var s string
			if got := plainString([]byte(tc.raw), &s); got != tc.fast {
				t.Fatalf("fast path taken = %v, want %v", got, tc.fast)
			}
			checkPlainString(t, []byte(tc.raw))
		})
	}
}

func FuzzPlainString(f *testing.F) {
	for _, tc := range plainStringCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(checkPlainString)
}

func checkPlainString(t *testing.T, raw []byte) {
	var got string
	if !plainString(raw, &got) {
		return
	}
	var want string
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("fast path read %s, which encoding/json refuses: %v", raw, err)
	}
	if got != want {
		t.Fatalf("fast path read %s as %q, encoding/json as %q", raw, got, want)
	}
}
