package methods

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// hashCases are spellings of a hash argument, valid and not.
var hashCases = []struct {
	name, raw string
	fast      bool // taken by the fast path
}{
	{"lower", `"0x` + strings.Repeat("ab", 32) + `"`, true},
	{"upper digits", `"0x` + strings.Repeat("AB", 32) + `"`, true},
	{"upper prefix", `"0X` + strings.Repeat("0f", 32) + `"`, true},
	{"one digit short", `"0x` + strings.Repeat("a", 63) + `"`, false},
	{"one digit long", `"0x` + strings.Repeat("a", 65) + `"`, false},
	{"not hex", `"0x` + strings.Repeat("zz", 32) + `"`, false},
	{"no prefix", `"` + strings.Repeat("ab", 33) + `"`, false},
	{"escaped", `"\u0030x` + strings.Repeat("ab", 31) + `"`, false},
	{"number", `12`, false},
	{"empty string", `""`, false},
}

// TestDecodeHashFast: the fast path decodes exactly what common.Hash's own
// decoding accepts, to the same value, and leaves everything else to it.
func TestDecodeHashFast(t *testing.T) {
	for _, tc := range hashCases {
		t.Run(tc.name, func(t *testing.T) {
			var h common.Hash
			if got := decodeHashFast(&h, []byte(tc.raw)); got != tc.fast {
				t.Fatalf("fast path taken = %v, want %v", got, tc.fast)
			}
			checkHashFast(t, []byte(tc.raw))
		})
	}
}

func FuzzDecodeHashFast(f *testing.F) {
	for _, tc := range hashCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(checkHashFast)
}

func checkHashFast(t *testing.T, raw []byte) {
	var want common.Hash
	wantErr := json.Unmarshal(raw, &want)
	var got common.Hash
	if !decodeHashFast(&got, raw) {
		return // left to json.Unmarshal: the same answer by construction
	}
	if wantErr != nil {
		t.Fatalf("fast path accepted %s, which common.Hash refuses: %v", raw, wantErr)
	}
	if got != want {
		t.Fatalf("fast path decoded %s as %x, common.Hash as %x", raw, got, want)
	}
}
