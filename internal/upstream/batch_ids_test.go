package upstream_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestBatchIDsAreStrict: a member's answer to an upstream batch is matched
// to the calls strictly. An id answered twice gives that call no answer
// (neither is trusted: it is sent again alone), and an answer whose id is
// not JSON (00, 01, 1.) answers nothing; the other calls keep their answers.
func TestBatchIDsAreStrict(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   []string // per call: its result, or "" for none (sent alone)
	}{
		{"well formed", `[{"jsonrpc":"2.0","id":0,"result":"0xa"},{"jsonrpc":"2.0","id":1,"result":"0xb"},{"jsonrpc":"2.0","id":2,"result":"0xc"}]`,
			[]string{`"0xa"`, `"0xb"`, `"0xc"`}},
		{"id answered twice", `[{"jsonrpc":"2.0","id":0,"result":"0xbad"},{"jsonrpc":"2.0","id":1,"result":"0xb"},{"jsonrpc":"2.0","id":0,"result":"0xa"},{"jsonrpc":"2.0","id":2,"result":"0xc"}]`,
			[]string{"", `"0xb"`, `"0xc"`}},
		{"id answered three times", `[{"jsonrpc":"2.0","id":2,"result":"0x1"},{"jsonrpc":"2.0","id":2,"result":"0x2"},{"jsonrpc":"2.0","id":2,"result":"0x3"},{"jsonrpc":"2.0","id":0,"result":"0xa"}]`,
			[]string{`"0xa"`, "", ""}},
		{"id 00", `[{"jsonrpc":"2.0","id":00,"result":"0xa"},{"jsonrpc":"2.0","id":1,"result":"0xb"}]`,
			[]string{"", `"0xb"`, ""}},
		{"id 01 and 2.", `[{"jsonrpc":"2.0","id":01,"result":"0xb"},{"jsonrpc":"2.0","id":2.,"result":"0xc"},{"jsonrpc":"2.0","id":0,"result":"0xa"}]`,
			[]string{`"0xa"`, "", ""}},
		{"unknown ids", `[{"jsonrpc":"2.0","id":7,"result":"0xz"},{"jsonrpc":"2.0","id":"1","result":"0xy"},{"jsonrpc":"2.0","id":-0,"result":"0xx"},{"jsonrpc":"2.0","id":2,"result":"0xc"}]`,
			[]string{"", "", `"0xc"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var one struct {
					ID json.RawMessage `json:"id"`
				}
				if json.Unmarshal(body, &one) == nil { // the pool's head probe
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(one.ID)+`,"result":"0x10"}`)
					return
				}
				_, _ = io.WriteString(w, tt.answer)
			}))
			t.Cleanup(node.Close)
			m := httpMember(t, node.URL)
			m.BatchSize = 10
			p := startPool(t, upstream.PoolConfig{}, m)
			calls := make([]upstream.BatchCall, len(tt.want))
			rule, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_getTransactionByHash")
			for i := range calls {
				calls[i] = upstream.BatchCall{Method: "eth_getTransactionByHash", Rule: rule, Params: json.RawMessage(`["0x01"]`)}
			}
			got := p.ForwardBatch(context.Background(), calls)
			for i, w := range tt.want {
				switch {
				case w == "" && got[i].Resp != nil:
					t.Errorf("call %d: answered %s%v, want none (sent alone)", i, got[i].Resp.Result, got[i].Resp.Err)
				case w != "" && got[i].Resp == nil:
					t.Errorf("call %d: no answer, want %s", i, w)
				case w != "" && string(got[i].Resp.Result) != w:
					t.Errorf("call %d: %s, want %s", i, got[i].Resp.Result, w)
				}
			}
		})
	}
}
