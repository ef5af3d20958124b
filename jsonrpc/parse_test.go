package jsonrpc

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestParseEchoesIDs checks that every id shape JSON-RPC allows comes back
// byte for byte in the response envelope.
func TestParseEchoesIDs(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, id string }{
		{"zero", `0`},
		{"one", `1`},
		{"exponent", `1e3`},
		{"negative", `-1`},
		{"fraction", `1.50`},
		{"big number", `123456789012345678901234567890123456789`},
		{"string", `"abc"`},
		{"empty string", `""`},
		{"string with escapes", `"a\"b\\c\n\u0041"`},
		{"unicode string", `"héllo ✓ 😀"`},
		{"escaped surrogate pair", `"\ud83d\ude00"`},
		{"null", `null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"jsonrpc":"2.0","id":` + tc.id + `,"method":"eth_chainId"}`
			msgs, batch, err := Parse([]byte(body), 10)
			if err != nil || batch || len(msgs) != 1 {
				t.Fatalf("Parse = %v, batch %v, %d msgs", err, batch, len(msgs))
			}
			if msgs[0].Err != nil {
				t.Fatalf("message error: %v", msgs[0].Err)
			}
			if got := string(msgs[0].Req.ID); got != tc.id {
				t.Fatalf("id = %s, want %s", got, tc.id)
			}
			out := AppendResponse(nil, msgs[0].Req.ID, &Response{Result: json.RawMessage(`"0x1"`)})
			want := `{"jsonrpc":"2.0","id":` + tc.id + `,"result":"0x1"}`
			if string(out) != want {
				t.Fatalf("response = %s, want %s", out, want)
			}
		})
	}
}

func TestParseParams(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, body, params string }{
		{"missing params means []", `{"jsonrpc":"2.0","id":1,"method":"m"}`, `[]`},
		{"null params means []", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, `[]`},
		{"array kept raw", `{"jsonrpc":"2.0","id":1,"method":"m","params":[ 1, "a" ]}`, `[ 1, "a" ]`},
		{"fields in any order", `{"params":[2],"method":"m","id":1,"jsonrpc":"2.0"}`, `[2]`},
		{"whitespace around", " \n\t{ \"jsonrpc\" : \"2.0\" , \"id\" : 1 , \"method\" : \"m\" , \"params\" : [ ] } \r\n", `[ ]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tc.body), 10)
			if err != nil || msgs[0].Err != nil {
				t.Fatalf("Parse: %v / %v", err, msgs[0].Err)
			}
			if got := string(msgs[0].Req.Params); got != tc.params {
				t.Fatalf("params = %s, want %s", got, tc.params)
			}
			if msgs[0].Req.Method != "m" {
				t.Fatalf("method = %q", msgs[0].Req.Method)
			}
		})
	}
}

// TestParseWholeBodyErrors covers bodies refused as a whole (one answer, id null).
func TestParseWholeBodyErrors(t *testing.T) {
	t.Parallel()
	call := `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`
	cases := []struct {
		name string
		body string
		code int
		msg  string
	}{
		{"empty body", ``, CodeParseError, "parse error"},
		{"not json", `hello`, CodeParseError, "parse error"},
		{"truncated object", `{"jsonrpc":"2.0","id":1`, CodeParseError, "parse error"},
		{"trailing garbage", call + `x`, CodeParseError, "parse error"},
		{"two objects", call + call, CodeParseError, "parse error"},
		{"trailing comma in batch", `[` + call + `,]`, CodeParseError, "parse error"},
		{"unterminated batch", `[` + call, CodeParseError, "parse error"},
		{"invalid utf8 escape", `{"jsonrpc":"2.0","id":"\x","method":"m"}`, CodeParseError, "parse error"},
		{"empty batch", `[]`, CodeInvalidRequest, "empty batch"},
		{"empty batch with spaces", " [ ] ", CodeInvalidRequest, "empty batch"},
		{"batch too large", "[" + strings.Repeat(call+",", 10) + call + "]", CodeInvalidRequest, "batch too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tc.body), 10)
			if err == nil {
				t.Fatalf("Parse accepted %q: %+v", tc.body, msgs)
			}
			if err.Code != tc.code || err.Message != tc.msg {
				t.Fatalf("error = %d %q, want %d %q", err.Code, err.Message, tc.code, tc.msg)
			}
			if err.HTTPStatus() != 200 {
				t.Fatalf("HTTP status = %d, want 200", err.HTTPStatus())
			}
		})
	}
}

// TestParseInvalidMessages covers request objects that are answered with
// their own error, with their id when it can be read.
func TestParseInvalidMessages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		code int
		id   string
	}{
		{"missing jsonrpc", `{"id":7,"method":"m"}`, CodeInvalidRequest, `7`},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"m"}`, CodeInvalidRequest, `7`},
		{"version as number", `{"jsonrpc":2.0,"id":7,"method":"m"}`, CodeInvalidRequest, `7`},
		{"missing method", `{"jsonrpc":"2.0","id":7}`, CodeInvalidRequest, `7`},
		{"method a number", `{"jsonrpc":"2.0","id":7,"method":1}`, CodeInvalidRequest, `7`},
		{"method null", `{"jsonrpc":"2.0","id":7,"method":null}`, CodeInvalidRequest, `7`},
		{"method empty", `{"jsonrpc":"2.0","id":7,"method":""}`, CodeInvalidRequest, `7`},
		{"method too long", `{"jsonrpc":"2.0","id":7,"method":"` + strings.Repeat("a", MaxMethodLength+1) + `"}`, CodeInvalidRequest, `7`},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`, CodeInvalidRequest, `null`},
		{"id an array", `{"jsonrpc":"2.0","id":[1],"method":"m"}`, CodeInvalidRequest, `null`},
		{"id a boolean", `{"jsonrpc":"2.0","id":true,"method":"m"}`, CodeInvalidRequest, `null`},
		{"id too long", `{"jsonrpc":"2.0","id":"` + strings.Repeat("x", MaxIDLength) + `","method":"m"}`, CodeInvalidRequest, `null`},
		{"no id, no method", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, `null`},
		{"no id, wrong version", `{"jsonrpc":"1.0","method":"m"}`, CodeInvalidRequest, `null`},
		{"params a string", `{"jsonrpc":"2.0","id":7,"method":"m","params":"x"}`, CodeInvalidParams, `7`},
		{"not an object", `42`, CodeInvalidRequest, `null`},
		{"a string", `"hello"`, CodeInvalidRequest, `null`},
		{"null body", `null`, CodeInvalidRequest, `null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs, batch, err := Parse([]byte(tc.body), 10)
			if err != nil || batch || len(msgs) != 1 {
				t.Fatalf("Parse = %v, batch %v, %d msgs", err, batch, len(msgs))
			}
			m := msgs[0]
			if m.Err == nil {
				t.Fatalf("accepted %s", tc.body)
			}
			if m.Err.Code != tc.code {
				t.Fatalf("code = %d (%s), want %d", m.Err.Code, m.Err.Message, tc.code)
			}
			if string(m.Req.ID) != tc.id {
				t.Fatalf("id = %s, want %s", m.Req.ID, tc.id)
			}
			if out := AppendResponse(nil, m.Req.ID, ErrorResponse(m.Err)); !json.Valid(out) {
				t.Fatalf("response is not JSON: %s", out)
			}
		})
	}
}

// TestParseNotifications: a valid request without an id member is a
// notification (run, not answered); one with "id":null is a call.
func TestParseNotifications(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		notify     bool
	}{
		{"no id", `{"jsonrpc":"2.0","method":"m"}`, true},
		{"no id, params", `{"jsonrpc":"2.0","method":"m","params":[1]}`, true},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"m"}`, false},
		{"id 0", `{"jsonrpc":"2.0","id":0,"method":"m"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tc.body), 10)
			if err != nil || len(msgs) != 1 || msgs[0].Err != nil {
				t.Fatalf("Parse = %v %+v", err, msgs)
			}
			if r := msgs[0].Req; r.Notification != tc.notify || r.Method != "m" || (tc.notify && string(r.ID) != "null") {
				t.Fatalf("request %+v", r)
			}
		})
	}
}

func TestParseBatch(t *testing.T) {
	t.Parallel()
	t.Run("mixed valid and invalid in order", func(t *testing.T) {
		body := `[{"jsonrpc":"2.0","id":1,"method":"a"}, 1, {"jsonrpc":"2.0","id":"x","method":2}, [], {"jsonrpc":"2.0","id":null,"method":"b","params":[true]}]`
		msgs, batch, err := Parse([]byte(body), 10)
		if err != nil || !batch || len(msgs) != 5 {
			t.Fatalf("Parse = %v, batch %v, %d msgs", err, batch, len(msgs))
		}
		want := []struct {
			id, method string
			code       int
		}{{`1`, "a", 0}, {`null`, "", CodeInvalidRequest}, {`"x"`, "", CodeInvalidRequest}, {`null`, "", CodeInvalidRequest}, {`null`, "b", 0}}
		for i, w := range want {
			m := msgs[i]
			if string(m.Req.ID) != w.id {
				t.Errorf("msg %d id = %s, want %s", i, m.Req.ID, w.id)
			}
			code := 0
			if m.Err != nil {
				code = m.Err.Code
			}
			if code != w.code {
				t.Errorf("msg %d code = %d, want %d", i, code, w.code)
			}
			if w.code == 0 && m.Req.Method != w.method {
				t.Errorf("msg %d method = %q, want %q", i, m.Req.Method, w.method)
			}
		}
	})
	t.Run("elements that are not objects", func(t *testing.T) {
		msgs, batch, err := Parse([]byte(`[1,2]`), 10)
		if err != nil || !batch || len(msgs) != 2 {
			t.Fatalf("Parse = %v, batch %v, %d msgs", err, batch, len(msgs))
		}
		for i, m := range msgs {
			if m.Err == nil || m.Err.Code != CodeInvalidRequest || string(m.Req.ID) != "null" {
				t.Errorf("msg %d = %+v", i, m)
			}
		}
	})
	t.Run("exactly at the limit", func(t *testing.T) {
		body := batchOf(1000)
		msgs, batch, err := Parse(body, 1000)
		if err != nil || !batch || len(msgs) != 1000 {
			t.Fatalf("Parse = %v, batch %v, %d msgs", err, batch, len(msgs))
		}
		for i, m := range msgs {
			if m.Err != nil || string(m.Req.ID) != itoa(i) {
				t.Fatalf("msg %d = %+v", i, m)
			}
		}
	})
	t.Run("one over the limit", func(t *testing.T) {
		_, _, err := Parse(batchOf(1001), 1000)
		if err == nil || err.Code != CodeInvalidRequest || err.Message != "batch too large" {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestParseDeepNesting: valid JSON nested deeper than the scanner's limit
// is refused with a clear error, not a crash.
func TestParseDeepNesting(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	// The outer array is the batch itself; its elements may nest MaxDepth levels.
	justOver := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	atLimit := `{"jsonrpc":"2.0","id":1,"method":"m","params":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`
	cases := []struct {
		name  string
		body  string
		whole bool // refused as a whole body, else as the one message
		code  int  // 0: accepted
	}{
		{"deep batch", deep, true, CodeInvalidRequest},
		{"one level too deep", justOver, true, CodeInvalidRequest},
		{"params at the depth limit", atLimit, false, 0},
		{"deep params", `{"jsonrpc":"2.0","id":1,"method":"m","params":` + deep + `}`, false, CodeInvalidRequest},
		{"deep element in a batch", `[{"jsonrpc":"2.0","id":1,"method":"m"},` + deep + `]`, true, CodeInvalidRequest},
		{"unbalanced", strings.Repeat("[", 10000), true, CodeParseError},
		{"beyond encoding/json's depth", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), true, CodeParseError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, err := Parse([]byte(tc.body), 1000)
			if tc.whole {
				if err == nil || err.Code != tc.code {
					t.Fatalf("err = %v, want code %d", err, tc.code)
				}
				return
			}
			if err != nil || len(msgs) != 1 {
				t.Fatalf("err = %v, %d msgs", err, len(msgs))
			}
			got := 0
			if msgs[0].Err != nil {
				got = msgs[0].Err.Code
			}
			if got != tc.code {
				t.Fatalf("code = %d (%v), want %d", got, msgs[0].Err, tc.code)
			}
			if out := AppendResponse(nil, msgs[0].Req.ID, ErrorResponse(ErrInternal("x"))); !json.Valid(out) {
				t.Fatalf("response is not JSON: %s", out)
			}
		})
	}
}

func batchOf(n int) []byte {
	b := []byte{'['}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, itoa(i)...)
		b = append(b, `,"method":"eth_chainId","params":[]}`...)
	}
	return append(b, ']')
}

func itoa(i int) string { return strconv.Itoa(i) }
