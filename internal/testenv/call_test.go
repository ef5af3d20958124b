package testenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCall: Call sends RPCBody and reads the status, the result or the
// error object back.
func TestCall(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch string(body) {
		case RPCBody("eth_chainId", ""):
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x539"}`)
		default:
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"slow down","data":{"see":"x"}}}`)
		}
	}))
	defer srv.Close()
	tests := []struct {
		name, method string
		wantStatus   int
		wantResult   string
		wantCode     int
	}{
		{"result", "eth_chainId", 200, `"0x539"`, 0},
		{"error", "eth_blockNumber", 429, "", -32005},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := Call(t, srv.URL, tc.method, "")
			if a.Status != tc.wantStatus || string(a.Result) != tc.wantResult {
				t.Fatalf("got %d %s, want %d %s", a.Status, a.Result, tc.wantStatus, tc.wantResult)
			}
			if code := 0; a.Error != nil {
				if code = a.Error.Code; code != tc.wantCode || string(a.Error.Data) != `{"see":"x"}` {
					t.Fatalf("error %+v, want code %d", a.Error, tc.wantCode)
				}
			} else if tc.wantCode != 0 {
				t.Fatalf("no error, want code %d", tc.wantCode)
			}
		})
	}
}
