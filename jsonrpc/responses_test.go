package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// readTwice is Responses's reading the way it was made before: the array's
// elements found by Elements, each then read by DecodeResponse.
func readTwice(b []byte) (string, error) {
	var out strings.Builder
	err := Elements(b, func(elem []byte) bool {
		id, r, err := DecodeResponse(elem)
		describe(&out, id, r, err)
		return true
	})
	return out.String(), err
}

func readOnce(b []byte) (string, error) {
	var out strings.Builder
	err := Responses(b, func(id json.RawMessage, r Response, err error) bool {
		describe(&out, id, r, err)
		return true
	})
	return out.String(), err
}

func describe(out *strings.Builder, id []byte, r Response, err error) {
	code, msg := 0, ""
	if r.Err != nil {
		code, msg = r.Err.Code, r.Err.Message
	}
	fmt.Fprintf(out, "[id %q result %q error %d %q err %v]", id, r.Result, code, msg, err)
}

// TestResponsesReadsABatchAnswerAsDecodeResponse: an upstream batch's
// answer read in one pass gives each element what DecodeResponse gives it,
// and a broken array stops where Elements stops.
func TestResponsesReadsABatchAnswerAsDecodeResponse(t *testing.T) {
	for _, tc := range []struct{ name, b string }{
		{"two answers", `[{"jsonrpc":"2.0","id":0,"result":{"a":[1,"x"]}},{"jsonrpc":"2.0","id":1,"result":null}]`},
		{"error answer", `[{"jsonrpc":"2.0","id":0,"error":{"code":-32000,"message":"header not found"}}]`},
		{"spaces", " [ {\"id\" : 0 , \"result\" : \"0x1\" } , {\"id\":1,\"result\":2} ] "},
		{"empty", `[]`},
		{"not a response", `[1,"x",null,[],{}]`},
		{"bad id", `[{"id":00,"result":1},{"id":1,"result":1}]`},
		{"no result", `[{"id":0}]`},
		{"broken second", `[{"id":0,"result":1},{"id":1,"result":}]`},
		{"unterminated", `[{"id":0,"result":1}`},
		{"trailing", `[{"id":0,"result":1}] x`},
		{"not an array", `{"id":0,"result":1}`},
		{"missing comma", `[{"id":0,"result":1} {"id":1,"result":1}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := readTwice([]byte(tc.b))
			got, gotErr := readOnce([]byte(tc.b))
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Errorf("Responses: %s (err %v)\nElements and DecodeResponse: %s (err %v)", got, gotErr, want, wantErr)
			}
		})
	}
}

// FuzzResponses: Responses never panics and reads any answer as Elements
// and DecodeResponse read it. (One difference is allowed: an element
// nested deeper than MaxDepth inside one of its members is read as
// DecodeResponse reads it alone, not refused whole.)
func FuzzResponses(f *testing.F) {
	f.Add([]byte(`[{"jsonrpc":"2.0","id":0,"result":{"a":[1,"x"]}},{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}]`))
	f.Add([]byte(`[1,{"id":00,"result":1},{"id":"a\"","result":"\\"}]`))
	f.Add([]byte(`[{"id":0,"result":1}`))
	f.Add([]byte(`[` + strings.Repeat(`{"a":`, 130) + `1` + strings.Repeat(`}`, 130) + `]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		want, wantErr := readTwice(b)
		got, gotErr := readOnce(b)
		if errors.Is(wantErr, ErrNotResponse) && bytes.Count(b, []byte("{"))+bytes.Count(b, []byte("[")) > MaxDepth {
			return // possibly the allowed difference
		}
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: Responses %s (err %v), Elements and DecodeResponse %s (err %v)", b, got, gotErr, want, wantErr)
		}
	})
}

// TestAppendRequestQuotesAsStrconv: the method name in a request nodegate
// sends is written as strconv.AppendQuote writes it, whatever it holds.
func TestAppendRequestQuotesAsStrconv(t *testing.T) {
	for _, tc := range []struct{ name, method string }{
		{"plain", "eth_getTransactionByHash"},
		{"quote", `a"b`},
		{"backslash", `a\b`},
		{"control", "a\x01b"},
		{"delete", "a\x7fb"},
		{"non-ascii", "méthode"},
		{"invalid utf-8", "a\xffb"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := appendQuoted(nil, tc.method), strconv.AppendQuote(nil, tc.method); string(got) != string(want) {
				t.Errorf("appendQuoted(%q) = %s, strconv %s", tc.method, got, want)
			}
		})
	}
}

// FuzzAppendQuoted: any name is quoted as strconv quotes it.
func FuzzAppendQuoted(f *testing.F) {
	f.Add("eth_call")
	f.Add("a\"\\\x00\x7f\xffé")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendQuoted(nil, s), strconv.AppendQuote(nil, s); string(got) != string(want) {
			t.Fatalf("appendQuoted(%q) = %s, strconv %s", s, got, want)
		}
	})
}
