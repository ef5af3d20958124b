package verify

import (
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// decodedRef is refOf's reading of a string param as encoding/json and
// go-ethereum's hexutil read it: what refOf must agree with.
func decodedRef(v []byte) ref {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ref{}
	}
	switch s {
	case "pending":
		return ref{pending: true}
	case "earliest":
		return ref{byNum: true}
	}
	if len(s) == 2+2*common.HashLength {
		b, err := hexutil.Decode(s)
		if err != nil {
			return ref{}
		}
		return ref{hash: common.BytesToHash(b), byHash: true}
	}
	n, err := hexutil.DecodeUint64(s)
	if err != nil {
		return ref{}
	}
	return ref{number: n, byNum: true}
}

// TestRefOfReadsStringsAsDecoded: a string param is read as encoding/json
// and hexutil read it, whether or not it holds escapes.
func TestRefOfReadsStringsAsDecoded(t *testing.T) {
	for _, tc := range []struct{ name, v string }{
		{"hash", `"0x00000000000000000000000000000000000000000000000000000000000000aa"`},
		{"hash upper X", `"0X00000000000000000000000000000000000000000000000000000000000000AA"`},
		{"hash no prefix", `"0000000000000000000000000000000000000000000000000000000000000000aa"`},
		{"hash bad digit", `"0x00000000000000000000000000000000000000000000000000000000000000ag"`},
		{"escaped hash", `"\u0030x00000000000000000000000000000000000000000000000000000000000000aa"`},
		{"number", `"0x1f"`},
		{"leading zero", `"0x01"`},
		{"escaped number", `"0x1\u0066"`},
		{"pending", `"pending"`},
		{"escaped pending", `"pend\u0069ng"`},
		{"earliest", `"earliest"`},
		{"latest", `"latest"`},
		{"empty", `""`},
		{"not a string", `12`},
		{"unterminated", `"0x1`},
		{"control character", "\"0x1\x01\""},
		{"invalid utf-8", "\"0x\xff\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := refOf([]byte(tc.v)), decodedRef([]byte(tc.v)); got != want {
				t.Errorf("refOf(%s) = %+v, decoded %+v", tc.v, got, want)
			}
		})
	}
}

// TestRefOfPlainHashAllocatesNothing: a hash param without escapes (every
// client's) is read without encoding/json: no allocation (encoding/json's
// decoding was 6 % of nodegate's instructions in batches of ten).
func TestRefOfPlainHashAllocatesNothing(t *testing.T) {
	v := []byte(`"0x00000000000000000000000000000000000000000000000000000000000000aa"`)
	if allocs := testing.AllocsPerRun(100, func() { _ = refOf(v) }); allocs != 0 {
		t.Errorf("refOf of a plain hash: %.0f allocations, want 0", allocs)
	}
}
