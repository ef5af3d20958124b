package upstream_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestFloorsInUpstreamBatches: an upstream batch to a member leaves out the
// calls its floor is above (they go alone, to another member); the others
// are answered in the batch.
func TestFloorsInUpstreamBatches(t *testing.T) {
	var (
		mu      sync.Mutex
		batches []string
	)
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var one struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &one) == nil { // the pool's head poll
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(one.ID)+`,"result":"0x100"}`)
			return
		}
		mu.Lock()
		batches = append(batches, string(body))
		mu.Unlock()
		var calls []struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &calls)
		out := make([]string, len(calls))
		for i, c := range calls {
			out[i] = `{"jsonrpc":"2.0","id":` + string(c.ID) + `,"result":"0x1"}`
		}
		_, _ = io.WriteString(w, "["+strings.Join(out, ",")+"]")
	}))
	t.Cleanup(node.Close)
	m := httpMember(t, node.URL)
	m.BatchSize, m.StateFrom = 10, upstream.Floor{From: 0x50, Set: true}
	p := startPool(t, upstream.PoolConfig{}, m)
	rule, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_getBalance")
	calls := []upstream.BatchCall{
		{Method: "eth_getBalance", Rule: rule, Params: json.RawMessage(`["0x00000000000000000000000000000000000000aa","0x60"]`)},
		{Method: "eth_getBalance", Rule: rule, Params: json.RawMessage(`["0x00000000000000000000000000000000000000aa","0x10"]`)},
		{Method: "eth_getBalance", Rule: rule, Params: json.RawMessage(`["0x00000000000000000000000000000000000000aa","latest"]`)},
	}
	got := p.ForwardBatch(context.Background(), calls)
	if got[0].Resp == nil || got[2].Resp == nil || got[1].Resp != nil {
		t.Fatalf("answers %+v %+v %+v: want the calls at 0x60 and latest answered, the one at 0x10 left to go alone", got[0].Resp, got[1].Resp, got[2].Resp)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(batches) != 1 || strings.Contains(batches[0], `"0x10"`) {
		t.Fatalf("batches sent: %q", batches)
	}
}
