package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzMaxBatch is the batch limit the fuzz targets parse with (the default
// of the ingress), so that the 1,001-call seed exercises "batch too large".
const fuzzMaxBatch = 1000

// seedBodies are request bodies every fuzz target of this package starts
// from; the large ones are built here rather than stored as files.
func seedBodies() [][]byte {
	call := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
	return [][]byte{
		[]byte(call),
		[]byte(`{"jsonrpc":"2.0","id":"a\"\u00e9\ud83d\ude00","method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000000"},"latest"]}`),
		[]byte(`{"jsonrpc":"2.0","id":0,"method":"m"}`),
		[]byte(`{"jsonrpc":"2.0","id":1e3,"method":"m","params":null}`),
		[]byte(`{"jsonrpc":"2.0","id":-1,"method":"m","params":{}}`),
		[]byte(`{"jsonrpc":"2.0","id":123456789012345678901234567890e-99999,"method":"m","params":[1e999999,-0.0]}`),
		[]byte(`{"jsonrpc":"2.0","id":{},"method":"m"}`),
		[]byte(`{"jsonrpc":"1.0","id":[],"method":7}`),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":[`),
		[]byte(`[` + call + `,1,"x",null,[],{}]`),
		[]byte(`[1,2]`),
		[]byte(`[]`),
		[]byte(` [ ] `),
		[]byte(`{"a":"\`),
		[]byte(`"\u12"`),
		[]byte("\xff\xfe{}"),
		[]byte(`nul`),
		[]byte(`{"jsonrpc":"2.0","id":true,"method":"m"}`),
		[]byte(strings.Repeat("[", 10000)),
		[]byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat("}", 200) + `}`),
		[]byte(`{"jsonrpc":"2.0","id":"` + strings.Repeat("x", 1<<20) + `","method":"m"}`),
		batchOf(fuzzMaxBatch + 1),
	}
}

// FuzzParse: Parse never panics; errors carry standard codes; accepted
// messages have a readable id, a method and an array of params; and the
// answers built from them are valid JSON.
func FuzzParse(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, err := Parse(body, fuzzMaxBatch)
		if err != nil {
			checkWholeBodyError(t, body, err)
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if len(msgs) == 0 || len(msgs) > fuzzMaxBatch || (!batch && len(msgs) != 1) {
			t.Fatalf("%d messages (batch %v)", len(msgs), batch)
		}
		var out []byte
		if batch {
			out = append(out, '[')
		}
		for i, m := range msgs {
			checkMessage(t, m)
			if i > 0 {
				out = append(out, ',')
			}
			resp := &Response{Result: json.RawMessage(`null`)}
			if m.Err != nil {
				resp = ErrorResponse(m.Err)
			}
			out = AppendResponse(out, m.Req.ID, resp)
		}
		if batch {
			out = append(out, ']')
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("response is not valid JSON in UTF-8: %q", out)
		}
	})
}

// FuzzParseInvalidUTF8: ids and method names with any bytes, invalid UTF-8
// included, alone and in a batch. Every answer nodegate could build from
// the parse (the error, or a method-not-found naming the method) is valid
// JSON in valid UTF-8; a body with invalid UTF-8 is a -32700 parse error.
func FuzzParseInvalidUTF8(f *testing.F) {
	f.Add([]byte("\xff"), []byte("eth_chainId"))
	f.Add([]byte("a\xc3"), []byte("eth_\xe2\x82"))
	f.Add([]byte("\xed\xa0\x80"), []byte("m"))          // a UTF-16 surrogate, encoded
	f.Add([]byte("ok"), []byte("\xf4\x90\x80\x80"))     // beyond U+10FFFF
	f.Add([]byte("\\\""), []byte(`\u00e9\ud83d\ude00`)) // escapes, valid
	f.Add([]byte("\\ud800"), []byte("\\udfff"))         // lone surrogate escapes: valid JSON
	f.Add([]byte("\xc0\xaf"), []byte("\xc0\xaf"))       // overlong encodings
	f.Fuzz(func(t *testing.T, id, method []byte) {
		one := append(append(append(append([]byte(`{"jsonrpc":"2.0","id":"`), id...), `","method":"`...), method...), `"}`...)
		for _, body := range [][]byte{one, append(append(append([]byte(`[`), one...), `,`...), append(one, ']')...)} {
			msgs, batch, err := Parse(body, fuzzMaxBatch)
			if !utf8.Valid(body) {
				if err == nil || err.Code != CodeParseError {
					t.Fatalf("body with invalid UTF-8 not refused as a parse error: %q", body)
				}
			}
			var out []byte
			if err != nil {
				out = AppendResponse(nil, NullID(), ErrorResponse(err))
			} else {
				if batch {
					out = append(out, '[')
				}
				for i, m := range msgs {
					if i > 0 {
						out = append(out, ',')
					}
					e := m.Err
					if e == nil {
						e = ErrMethodNotFound(m.Req.Method)
					}
					out = AppendResponse(out, m.Req.ID, ErrorResponse(e))
				}
				if batch {
					out = append(out, ']')
				}
			}
			if !utf8.Valid(out) || !json.Valid(out) {
				t.Fatalf("answer to %q is not valid JSON in UTF-8: %q", body, out)
			}
		}
	})
}

func checkWholeBodyError(t *testing.T, body []byte, err *Error) {
	t.Helper()
	switch err.Code {
	case CodeParseError:
		if json.Valid(body) && utf8.Valid(body) {
			t.Fatalf("valid JSON refused as a parse error: %q", body)
		}
	case CodeInvalidRequest:
		if !json.Valid(body) {
			t.Fatalf("invalid JSON answered %q instead of a parse error", err.Message)
		}
	default:
		t.Fatalf("whole-body error with code %d: %v", err.Code, err)
	}
	if !json.Valid(AppendResponse(nil, NullID(), ErrorResponse(err))) {
		t.Fatalf("error response is not JSON: %v", err)
	}
}

func checkMessage(t *testing.T, m Message) {
	t.Helper()
	if !json.Valid(m.Req.ID) || !(string(m.Req.ID) == "null" || validID(m.Req.ID)) {
		t.Fatalf("message id %q is not a valid id", m.Req.ID)
	}
	if m.Err != nil {
		if m.Err.Code != CodeInvalidRequest && m.Err.Code != CodeInvalidParams {
			t.Fatalf("message error with code %d: %v", m.Err.Code, m.Err)
		}
		return
	}
	if m.Req.Method == "" || len(m.Req.Method) > MaxMethodLength {
		t.Fatalf("accepted method %q", m.Req.Method)
	}
	if len(m.Req.Params) == 0 || (m.Req.Params[0] != '[' && m.Req.Params[0] != '{') || !json.Valid(m.Req.Params) {
		t.Fatalf("accepted params %q", m.Req.Params)
	}
	var elems []json.RawMessage
	if m.Req.Params[0] == '[' {
		if err := json.Unmarshal(m.Req.Params, &elems); err != nil {
			t.Fatalf("params are not an array: %v", err)
		}
	}
}

// FuzzScanner checks the raw-bytes scanner against encoding/json: on any
// input json.Valid accepts, skipValue ends where the value ends, and
// arrayElements and objectFields find exactly the elements and members that
// encoding/json finds (unless the nesting exceeds MaxDepth, which must be
// reported as such). On other input they must not panic.
func FuzzScanner(f *testing.F) {
	for _, b := range seedBodies() {
		f.Add(b)
	}
	f.Add([]byte(` {"a" : [1, {"b":"\"]}"}], "c\\":null , "a":2} `))
	f.Add([]byte(`["\\", "\"", [], {}, -1.5e+3, true, false, null]`))
	f.Add([]byte(`{"\u0061":1,"a":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := json.Valid(b)
		end, err := skipValue(b, 0)
		if valid {
			switch {
			case errors.Is(err, errTooDeep):
			case err != nil:
				t.Fatalf("skipValue refused valid JSON: %v", err)
			case end != len(bytes.TrimRight(b, " \t\r\n")):
				t.Fatalf("skipValue ended at %d, want %d", end, len(bytes.TrimRight(b, " \t\r\n")))
			}
		} else if err == nil && (end <= 0 || end > len(b)) {
			t.Fatalf("skipValue returned end %d for %d bytes", end, len(b))
		}
		checkArray(t, b, valid)
		checkObject(t, b, valid)
	})
}

func checkArray(t *testing.T, b []byte, valid bool) {
	t.Helper()
	var got [][]byte
	err := arrayElements(b, func(elem []byte) bool {
		if len(elem) == 0 {
			t.Fatalf("empty element")
		}
		got = append(got, elem)
		return true
	})
	if !valid || errors.Is(err, errTooDeep) {
		return
	}
	var want []json.RawMessage
	if jerr := json.Unmarshal(b, &want); jerr != nil {
		if err == nil {
			t.Fatalf("arrayElements accepted a non-array: %q", b)
		}
		return
	}
	if err != nil {
		t.Fatalf("arrayElements refused a valid array: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("arrayElements found %d elements, encoding/json %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("element %d = %q, encoding/json %q", i, got[i], want[i])
		}
	}
}

type member struct {
	key   string
	value []byte
}

func checkObject(t *testing.T, b []byte, valid bool) {
	t.Helper()
	var got []member
	err := objectFields(b, func(key, value []byte) bool {
		var k string
		if valid {
			// Keys come back raw (escapes untouched): they must decode as a string.
			if jerr := json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k); jerr != nil {
				t.Fatalf("raw key %q does not decode: %v", key, jerr)
			}
		}
		got = append(got, member{k, value})
		return true
	})
	if !valid || errors.Is(err, errTooDeep) {
		return
	}
	want, isObject := orderedMembers(b)
	if !isObject {
		if err == nil {
			t.Fatalf("objectFields accepted a non-object: %q", b)
		}
		return
	}
	if err != nil {
		t.Fatalf("objectFields refused a valid object: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("objectFields found %d members, encoding/json %d", len(got), len(want))
	}
	for i := range got {
		if got[i].key != want[i].key || !bytes.Equal(got[i].value, want[i].value) {
			t.Fatalf("member %d = %q:%q, encoding/json %q:%q", i, got[i].key, got[i].value, want[i].key, want[i].value)
		}
	}
}

// orderedMembers lists an object's members in order with encoding/json
// (a map would lose the order and the duplicates).
func orderedMembers(b []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{tok.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return out, true
}

// FuzzDecodeResponse: DecodeResponse never panics; what it accepts is a
// result or an error, never both; and for well-formed input the answer
// re-encoded for a client is valid JSON with the result bytes untouched.
func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":null}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2,{"b":"\"}"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: x","data":"0x08c379a0"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":"x"},"result":1}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":null,"result":"0x"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":"bad"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"result":1}]`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}`))
	f.Add([]byte(`{"result":"` + strings.Repeat("ab", 1<<19) + `"}`))
	f.Add([]byte(``))
	f.Add([]byte(`{"jsonrpc":"2.0","id":00,"result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":-01,"result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1.,"result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e,"result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":nul,"result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a\x","result":"0x1"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":true,"result":"0x1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, r, err := DecodeResponse(b)
		if err != nil {
			if !errors.Is(err, ErrNotResponse) {
				t.Fatalf("error %v is not ErrNotResponse", err)
			}
			return
		}
		if (r.Err == nil) == (len(r.Result) == 0) {
			t.Fatalf("result %q and error %v: want exactly one", r.Result, r.Err)
		}
		if id != nil && (!json.Valid(id) || id[0] == '{' || id[0] == '[' || id[0] == 't' || id[0] == 'f') {
			t.Fatalf("id %q is not a JSON null, string or number", id) // strict even when the rest is not checked
		}
		if !json.Valid(b) {
			return // the scanner does not check the spelling of other literals; upstreams are trusted for that
		}
		if r.Err == nil && !json.Valid(r.Result) {
			t.Fatalf("result %q is not JSON", r.Result)
		}
		out := AppendResponse(nil, json.RawMessage(`7`), &r)
		if !json.Valid(out) {
			t.Fatalf("re-encoded answer is not JSON: %q", out)
		}
		if r.Err == nil && !bytes.Contains(out, r.Result) {
			t.Fatalf("result not passed through: %q", out)
		}
	})
}

// FuzzValidResponseID: the fast path for plain integer ids decides as
// the scanner does (json.Valid on what may start an id).
func FuzzValidResponseID(f *testing.F) {
	for _, s := range []string{`0`, `7`, `00`, `01`, `1.`, `10`, `-1`, `"a"`, `null`, `nul`, `1e3`, `18446744073709551616`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, id []byte) {
		want := len(id) > 0 && len(id) <= MaxIDLength && strings.ContainsRune(`"n-0123456789`, rune(id[0])) && json.Valid(id)
		if got := validResponseID(id); got != want {
			t.Fatalf("validResponseID(%q) = %v, want %v", id, got, want)
		}
	})
}
