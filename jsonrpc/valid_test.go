package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidAsEncodingJSON: valid accepts and refuses what encoding/json's
// Valid accepts and refuses, case by case.
func TestValidAsEncodingJSON(t *testing.T) {
	for _, tc := range []struct{ name, b string }{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`},
		{"batch", ` [ {"a" : [1, {"b":"\"]}"}], "c\\":null , "a":2} , true , false , null ] `},
		{"numbers", `[0,-0,1.5,-1.5e+3,1E-2,10,0.0]`},
		{"bad numbers", `[01]`}, {"minus", `[-]`}, {"dot", `[1.]`}, {"dot exp", `[1.e5]`}, {"exp", `[1e]`}, {"plus", `[+1]`},
		{"escapes", `["\"\\\/\b\f\n\r\t\u00e9\uD83D"]`},
		{"bad escape", `["\x"]`}, {"short unicode", `["\u12"]`}, {"bad unicode", `["\u12g4"]`},
		{"control", "[\"a\x01\"]"}, {"tab in string", "[\"a\tb\"]"}, {"high bytes", "[\"\xff\xfe\"]"},
		{"bare high byte", "[\xff]"}, {"bom", "\xef\xbb\xbf{}"},
		{"literals", `[true,false,null]`}, {"short literal", `[tru]`}, {"long literal", `[truex]`}, {"capital", `[True]`},
		{"empty", ``}, {"space", ` `}, {"two values", `1 2`}, {"trailing comma", `[1,]`}, {"object comma", `{"a":1,}`},
		{"missing colon", `{"a" 1}`}, {"number key", `{1:2}`}, {"unterminated", `{"a":[1`}, {"unterminated string", `"abc`},
		{"empty containers", `[{},[],{ },[ ]]`}, {"top scalar", ` "x" `},
		{"deep 10000", strings.Repeat("[", 10000) + strings.Repeat("]", 10000)},
		{"deep 10001", strings.Repeat("[", 10001) + strings.Repeat("]", 10001)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := valid([]byte(tc.b)), json.Valid([]byte(tc.b)); got != want {
				t.Errorf("valid = %v, encoding/json %v", got, want)
			}
		})
	}
}

// FuzzValidAsEncodingJSON: on any input, valid is encoding/json's Valid.
func FuzzValidAsEncodingJSON(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add(b)
	}
	for _, s := range []string{`[0,-0,1.5e+3,"\u00e9\n",true,null,{"a":{}}]`, `{"a":01}`, `["\x"]`, "[\"\x1f\"]", `[1.e5]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("%q: valid %v, encoding/json %v", b, got, want)
		}
	})
}
