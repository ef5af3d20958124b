package fleethead

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestParseHead: a message reads back as written; a malformed one is an
// error naming the form it takes.
func TestParseHead(t *testing.T) {
	h := head{from: "ab12", number: 1234, hash: common.HexToHash("0x01"), rewound: true}
	for _, tc := range []struct {
		name, msg string
		want      head
		err       string
	}{
		{"as written", h.String(), h, ""},
		{"not rewound", "r 7 " + common.Hash{}.Hex() + " 0", head{from: "r", number: 7}, ""},
		{"too few fields", "r 7 0", head{}, "want \"from number hash 0|1\""},
		{"a flag other than 0 or 1", "r 7 " + common.Hash{}.Hex() + " 2", head{}, "want \"from number hash 0|1\""},
		{"a negative number", "r -7 " + common.Hash{}.Hex() + " 0", head{}, "number"},
		{"a short hash", "r 7 0x01 0", head{}, "32-byte"},
		{"a hash that is not hex", "r 7 0x" + strings.Repeat("zz", 32) + " 0", head{}, "hash"},
		{"a sender name past 64 characters", strings.Repeat("a", 65) + " 7 " + common.Hash{}.Hex() + " 0", head{}, "want"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseHead(tc.msg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseHead(%q) = %v, want an error with %q", tc.msg, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("parseHead(%q) = %+v, %v; want %+v", tc.msg, got, err, tc.want)
			}
		})
	}
}

// FuzzParseHead: any message is read or refused, never a panic, and what
// is read writes back to a message that reads the same.
func FuzzParseHead(f *testing.F) {
	f.Add(head{from: "x", number: 1, hash: common.HexToHash("0x02")}.String())
	f.Add("x 1 0x 1")
	f.Add("")
	f.Fuzz(func(t *testing.T, msg string) {
		h, err := parseHead(msg)
		if err != nil {
			return
		}
		again, err := parseHead(h.String())
		if err != nil || again != h {
			t.Fatalf("%q read as %+v, written %q, read back %+v %v", msg, h, h.String(), again, err)
		}
	})
}
