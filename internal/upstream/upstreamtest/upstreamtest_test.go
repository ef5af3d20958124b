package upstreamtest

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadRequest: a call's id, method and params as a fake node reads
// them; a body that is not one call is an error.
func TestReadRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body, method string
		params             int
		bad                bool
	}{
		{"a call", `{"jsonrpc":"2.0","id":7,"method":"eth_getBlockByNumber","params":["latest",false]}`, "eth_getBlockByNumber", 2, false},
		{"no params", `{"jsonrpc":"2.0","id":"a","method":"eth_chainId"}`, "eth_chainId", 0, false},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}]`, "", 0, true},
		{"not JSON", `{`, "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := ReadRequest(httptest.NewRequest("POST", "/", strings.NewReader(tc.body)))
			if (err != nil) != tc.bad || req.Method != tc.method || len(req.Params) != tc.params {
				t.Fatalf("%+v, %v", req, err)
			}
		})
	}
}

// FuzzReadRequest: any body is read as a call or refused, never a panic;
// a call read has the id it was sent with.
func FuzzReadRequest(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, body string) {
		req, err := ReadRequest(httptest.NewRequest("POST", "/", strings.NewReader(body)))
		if err == nil && req.ID != nil && !strings.Contains(body, string(req.ID)) {
			t.Fatalf("id %s not in %q", req.ID, body)
		}
	})
}

// TestBlockHash: a fake block's hash holds its fork and its number.
func TestBlockHash(t *testing.T) {
	t.Parallel()
	if h := BlockHash(0x1b, 2); h != "0x02"+strings.Repeat("0", 60)+"1b" || len(h) != 66 {
		t.Fatalf("hash %s", h)
	}
}
