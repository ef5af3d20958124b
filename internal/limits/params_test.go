package limits

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/methods"
)

func TestCountParams(t *testing.T) {
	h := `"0x` + strings.Repeat("11", 32) + `"`
	a := `"0x` + strings.Repeat("22", 20) + `"`
	tests := []struct {
		name   string
		filter string
		want   int
	}{
		{"empty", `{}`, 0},
		{"one address", `{"address":` + a + `}`, 1},
		{"address array", `{"address":[` + a + `,` + a + `]}`, 2},
		{"null address", `{"address":null}`, 0},
		{"topics: values, alternatives, wildcards", `{"topics":[` + h + `,null,[` + h + `,` + h + `],[null,` + h + `]]}`, 4},
		{"address and topics", `{"address":[` + a + `],"topics":[[` + h + `,` + h + `,` + h + `]]}`, 4},
		{"keys in any case, as go-ethereum reads them", `{"ADDRESS":[` + a + `,` + a + `],"Topics":[` + h + `]}`, 3},
		{"range only", `{"fromBlock":"0x1","toBlock":"latest"}`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CountParams([]byte(tc.filter))
			if err != nil || got != tc.want {
				t.Fatalf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"address":[`, `{"topics":[[1,]]}`} {
		if _, err := CountParams([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func FuzzCountParams(f *testing.F) {
	for _, s := range []string{`{}`, `{"address":"0x1","topics":[null,["0x2",null]]}`, `{"topics":[[[[]]]]}`, `{"address":[1,2,3]}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, err := CountParams(raw)
		if err == nil && n < 0 {
			t.Fatalf("negative count %d", n)
		}
		if err == nil && !json.Valid(raw) {
			t.Fatalf("counted invalid JSON %q", raw)
		}
	})
}

func TestCapGas(t *testing.T) {
	tests := []struct {
		name, params, want string
	}{
		{"gas lowered, every other byte kept", `[{"to":"0x01","gas":"0xffffffffffffffff","data":"0xabcd"},"latest"]`, `[{"to":"0x01","gas":"0x1c9c380","data":"0xabcd"},"latest"]`},
		{"the last spelling go-ethereum takes for gas", `[{"gas":"0x1","GAS":"0x2","Gas":"0x3"},{"blockHash":"0x00"}]`, `[{"gas":"0x1","GAS":"0x2","Gas":"0x1c9c380"},{"blockHash":"0x00"}]`},
		{"duplicate to in another case kept in order", `[{"to":"0xaa","gas":"0x5","TO":"0xbb"}]`, `[{"to":"0xaa","gas":"0x1c9c380","TO":"0xbb"}]`},
		{"an escaped key is gas too", `[{"g\u0061s":"0x5","gaz":"0x6"}]`, `[{"g\u0061s":"0x1c9c380","gaz":"0x6"}]`},
		{"a folded non-ASCII key is gas too", `[{"ga\u017f":"0x5"}]`, `[{"ga\u017f":"0x1c9c380"}]`},
		{"spacing and the other params kept", `[ {"gas" : "0x5" } , "latest" , {"0xaa": {"balance": "0x1"}}]`, `[ {"gas" : "0x1c9c380" } , "latest" , {"0xaa": {"balance": "0x1"}}]`},
		{"no HTML escaping", `[{"gas":"0x5","data":"<&>"}]`, `[{"gas":"0x1c9c380","data":"<&>"}]`},
		{"no gas member: added at the end", `[{"to":"0x01"}]`, `[{"to":"0x01","gas":"0x1c9c380"}]`},
		{"empty object", `[{ }]`, `[{ "gas":"0x1c9c380"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CapGas([]byte(tc.params), 30_000_000)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{`[]`, `{}`, `["latest"]`, `[null]`, `[`} {
		if _, err := CapGas([]byte(bad), 1); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func FuzzCapGas(f *testing.F) {
	for _, s := range []string{`[{"gas":"0x1"},"latest"]`, `[{"Gas":1,"to":null}]`, `[{}]`, `[[]]`, `[{"a":{"b":[1,2]}}, 3]`} {
		f.Add([]byte(s), uint64(30_000_000))
	}
	for _, s := range []string{`[{"to":"0xaa","gas":"0x5","TO":"0xbb"}]`, `[{"g\u0061s":"0x5","Gas":null}]`, `[{"gas":"0x1","data":"0x00","DATA":"0x01"},"latest",{}]`} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, params []byte, gasCap uint64) {
		out, err := CapGas(params, gasCap)
		if err != nil {
			return
		}
		var p []json.RawMessage
		if err := json.Unmarshal(out, &p); err != nil || len(p) == 0 {
			t.Fatalf("output %q is not a params array: %v", out, err)
		}
		// A call object go-ethereum reads (the only kind the gas cap stage
		// gets: the method rules decoded it) is the same call after, but
		// for its gas, which is the cap whatever spelling the client used.
		var in []json.RawMessage
		if json.Unmarshal(params, &in) != nil || len(in) != len(p) {
			t.Fatalf("%d params in, %d out", len(in), len(p))
		}
		var before, after methods.CallArgs
		if json.Unmarshal(in[0], &before) != nil {
			return
		}
		if err := json.Unmarshal(p[0], &after); err != nil || after.Gas == nil || uint64(*after.Gas) != gasCap {
			t.Fatalf("capped call object %q: %v", p[0], err)
		}
		g := hexutil.Uint64(gasCap)
		before.Gas = &g
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("the call changed beyond its gas:\n in  %s\n out %s", in[0], p[0])
		}
		for i := 1; i < len(p); i++ {
			if !bytes.Equal(in[i], p[i]) {
				t.Fatalf("param %d changed: %s -> %s", i, in[i], p[i])
			}
		}
	})
}
