package ingress_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestForwardedStandardMethods(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method string
		check  func(result string) bool
	}{
		{"eth_chainId", func(r string) bool { return r == `"0x539"` }},
		{"net_version", func(r string) bool { return r == `"1337"` }},
		{"eth_blockNumber", func(r string) bool { return strings.HasPrefix(r, `"0x`) }},
		{"web3_clientVersion", func(r string) bool { return strings.Contains(r, "/") && strings.HasPrefix(r, `"`) }},
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			r := post(t, call("1", tc.method, "[]"))
			a := r.single(t)
			if r.Status != http.StatusOK || a.Error != nil || !tc.check(string(a.Result)) {
				t.Fatalf("HTTP %d: %s", r.Status, r.Body)
			}
		})
	}
}

// TestIDsEchoed: the id comes back byte for byte, whatever its spelling.
func TestIDsEchoed(t *testing.T) {
	t.Parallel()
	ids := []string{`0`, `1`, `1e3`, `-1`, `1.0`, `18446744073709551616123`, `"abc"`, `""`,
		`"a\"b\\c\u0000\n"`, `"héllo ✓ 😀"`, `"\ud83d\ude00"`, `null`}
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			for _, method := range []string{"eth_chainId", "no_such_method"} { // success and error answers
				r := post(t, call(id, method, "[]"))
				r.single(t)
				if prefix := `{"jsonrpc":"2.0","id":` + id + `,`; !strings.HasPrefix(string(r.Body), prefix) {
					t.Fatalf("%s: reply %s does not start with %s", method, r.Body, prefix)
				}
			}
			r := post(t, batchOf(call(id, "eth_chainId", "[]"), call(id, "nope", "")))
			if as := r.batch(t); len(as) != 2 || string(as[0].ID) != id || string(as[1].ID) != id {
				t.Fatalf("batch ids: %s", r.Body)
			}
		})
	}
}

func TestParamsOptionalAndNull(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"missing params": `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`,
		"null params":    `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":null}`,
		"empty params":   `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if a := post(t, body).single(t); string(a.Result) != `"0x539"` {
				t.Fatalf("answer %+v", a)
			}
		})
	}
	t.Run("missing params of a validated method", func(t *testing.T) {
		wantError(t, post(t, call("2", "eth_getTransactionByHash", "")), 200, -32602, "missing value for required argument 0", "2")
	})
}

func TestAuth(t *testing.T) {
	t.Parallel()
	garbage := []byte("\x00\xff not json {{{")
	cases := []struct {
		name, path string
		body       []byte
		msg        string
	}{
		{"no key, trailing slash", "/v3/", []byte(call("1", "eth_chainId", "[]")), "API key required in the url"},
		{"no key, no slash", "/v3", []byte(call("1", "eth_chainId", "[]")), "API key required in the url"},
		{"no key, garbage body", "/v3/", garbage, "API key required in the url"},
		{"wrong key", "/v3/fedcba9876543210fedcba9876543210", []byte(call("1", "eth_chainId", "[]")), "invalid API key"},
		{"malformed key", "/v3/not-a-key", []byte(call("1", "eth_chainId", "[]")), "invalid API key"},
		{"wrong key, garbage body", "/v3/fedcba9876543210fedcba9876543210", garbage, "invalid API key"},
		{"wrong key, oversized body", "/v3/fedcba9876543210fedcba9876543210", make([]byte, 6<<20), "invalid API key"},
		{"key with extra segment", keyPath() + "/x", []byte(call("1", "eth_chainId", "[]")), "invalid API key"},
		{"upper-case key", "/v3/" + strings.ToUpper(gw.GeneratedKey), []byte(call("1", "eth_chainId", "[]")), "invalid API key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, do(t, http.MethodPost, tc.path, tc.body), http.StatusUnauthorized, -32002, tc.msg, "null")
		})
	}
}

func TestHTTPMethods(t *testing.T) {
	t.Parallel()
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		t.Run(m, func(t *testing.T) {
			r := do(t, m, keyPath(), nil)
			if r.Status != http.StatusMethodNotAllowed {
				t.Fatalf("HTTP %d, want 405", r.Status)
			}
			if allow := r.Header.Get("Allow"); !strings.Contains(allow, "POST") {
				t.Fatalf("Allow = %q", allow)
			}
			if a := r.single(t); a.Error == nil || string(a.ID) != "null" {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
	t.Run("HEAD", func(t *testing.T) {
		if r := do(t, http.MethodHead, keyPath(), nil); r.Status != http.StatusMethodNotAllowed || !strings.Contains(r.Header.Get("Allow"), "POST") {
			t.Fatalf("HTTP %d, Allow %q", r.Status, r.Header.Get("Allow"))
		}
	})
}

func TestHealth(t *testing.T) {
	t.Parallel()
	r := do(t, http.MethodGet, "/health", nil)
	if r.Status != http.StatusOK || !json.Valid(r.Body) || !strings.Contains(string(r.Body), `"ok"`) {
		t.Fatalf("HTTP %d: %s", r.Status, r.Body)
	}
}

// TestErrorTable walks docs/spec.md's table for the errors of the wire.
func TestErrorTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		code       int
		msg, id    string
	}{
		{"not JSON", `hello`, -32700, "parse error", "null"},
		{"truncated", `{"jsonrpc":"2.0","id":1,`, -32700, "parse error", "null"},
		{"empty body", ``, -32700, "parse error", "null"},
		{"missing jsonrpc", `{"id":1,"method":"eth_chainId"}`, -32600, "", "1"},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}`, -32600, "", "1"},
		{"missing method", `{"jsonrpc":"2.0","id":1}`, -32600, "", "1"},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":5}`, -32600, "", "1"},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}`, -32600, "", "null"},
		{"id an array", `{"jsonrpc":"2.0","id":[1],"method":"eth_chainId"}`, -32600, "", "null"},
		{"not an object", `7`, -32600, "", "null"},
		{"empty batch", `[]`, -32600, "empty batch", "null"},
		{"unknown method", call("1", "eth_noSuchThing", "[]"), -32601, "the method eth_noSuchThing does not exist/is not available", "1"},
		{"unknown namespace", call("1", "foo_bar", "[]"), -32601, "the method foo_bar does not exist/is not available", "1"},
		{"rollup method on the EVM network", call("1", "rollup_pendingTransactions", "[]"), -32601, "the method rollup_pendingTransactions does not exist/is not available", "1"},
		{"bad params", call("1", "eth_getTransactionByHash", `["0x12"]`), -32602, "invalid argument 0: hex string has length 2, want 64 for common.Hash", "1"},
		{"params an object", call("1", "eth_chainId", `{}`), -32602, "non-array args", "1"},
	}
	for _, refused := range []string{"admin_nodeInfo", "debug_traceTransaction", "personal_listAccounts", "miner_start",
		"txpool_content", "engine_forkchoiceUpdatedV3", "eth_sign", "eth_signTransaction", "eth_signTypedData_v4", "eth_sendTransaction"} {
		cases = append(cases, struct {
			name, body string
			code       int
			msg, id    string
		}{"refused " + refused, call(`"r"`, refused, "[]"), -32601, "the method " + refused + " does not exist/is not available", `"r"`})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, post(t, tc.body), http.StatusOK, tc.code, tc.msg, tc.id)
		})
	}
}

func TestBatches(t *testing.T) {
	t.Parallel()
	t.Run("mixed valid and invalid, in order", func(t *testing.T) {
		r := post(t, batchOf(
			call("1", "eth_chainId", "[]"),
			`{"jsonrpc":"2.0","id":2}`,
			call(`"three"`, "admin_peers", "[]"),
			`7`,
			call("5", "eth_getTransactionByHash", `["0x1"]`),
			call("6", "net_version", ""),
			`{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}`,
			call("8", "eth_getTransactionByBlockNumberAndIndex", `["0x0","0x0"]`),
		))
		as := r.batch(t)
		want := []struct {
			id     string
			code   int
			result string
		}{{"1", 0, `"0x539"`}, {"2", -32600, ""}, {`"three"`, -32601, ""}, {"null", -32600, ""},
			{"5", -32602, ""}, {"6", 0, `"1337"`}, {"null", -32600, ""}, {"8", 0, `null`}}
		if len(as) != len(want) {
			t.Fatalf("%d answers, want %d: %s", len(as), len(want), r.Body)
		}
		for i, w := range want {
			a := as[i]
			if string(a.ID) != w.id {
				t.Errorf("answer %d id = %s, want %s", i, a.ID, w.id)
			}
			switch {
			case w.code != 0 && (a.Error == nil || a.Error.Code != w.code):
				t.Errorf("answer %d = %+v, want code %d", i, a, w.code)
			case w.code == 0 && (a.Error != nil || string(a.Result) != w.result):
				t.Errorf("answer %d = %s %+v, want result %s", i, a.Result, a.Error, w.result)
			}
		}
	})
	t.Run("elements that are not objects", func(t *testing.T) {
		as := post(t, `[1,2]`).batch(t)
		if len(as) != 2 {
			t.Fatalf("%d answers", len(as))
		}
		for _, a := range as {
			if a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" {
				t.Fatalf("answer %+v", a)
			}
		}
	})
	t.Run("1000 calls answered in order", func(t *testing.T) {
		calls := make([]string, 1000)
		for i := range calls {
			switch i % 4 {
			case 0:
				calls[i] = call(strconv.Itoa(i), "eth_chainId", "")
			case 1:
				calls[i] = call(`"s`+strconv.Itoa(i)+`"`, "net_version", "[]")
			case 2:
				calls[i] = call(strconv.Itoa(i), "eth_nope"+strconv.Itoa(i), "[]")
			default:
				calls[i] = call(strconv.Itoa(i), "eth_getStorageAt", `["0x00000000000000000000000000000000000000aa","0x`+strconv.FormatInt(int64(i), 16)+`","latest"]`)
			}
		}
		as := post(t, batchOf(calls...)).batch(t)
		if len(as) != 1000 {
			t.Fatalf("%d answers", len(as))
		}
		for i, a := range as {
			wantID := strconv.Itoa(i)
			if i%4 == 1 {
				wantID = `"s` + wantID + `"`
			}
			ok := string(a.ID) == wantID
			switch i % 4 {
			case 0:
				ok = ok && string(a.Result) == `"0x539"`
			case 1:
				ok = ok && string(a.Result) == `"1337"`
			case 2:
				ok = ok && a.Error != nil && a.Error.Message == "the method eth_nope"+strconv.Itoa(i)+" does not exist/is not available"
			default:
				ok = ok && string(a.Result) == `"0x`+strings.Repeat("0", 64)+`"`
			}
			if !ok {
				t.Fatalf("answer %d = id %s result %s error %+v", i, a.ID, a.Result, a.Error)
			}
		}
	})
	t.Run("1001 calls refused once", func(t *testing.T) {
		calls := make([]string, 1001)
		for i := range calls {
			calls[i] = call(strconv.Itoa(i), "eth_chainId", "")
		}
		wantError(t, post(t, batchOf(calls...)), http.StatusOK, -32600, "batch too large", "null")
	})
}
