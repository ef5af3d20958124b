package ingress_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestJunkIsRateLimited: a 5 MB body of 1,000 entries that are not
// requests spends the cheapest method's credits per entry (5 x 1,000 on a
// 1,000-credit-per-second key), so sending it again at once is refused
// with 429 -32005 instead of being served for free for ever.
func TestJunkIsRateLimited(t *testing.T) {
	t.Parallel()
	n := &pipeline.Network{Name: "junk", Methods: methods.NewTable(methods.FamilyEVM), Upstream: upstream.Func{ID: "none", Fn: func(context.Context, []byte) ([]byte, error) {
		return nil, errors.New("junk reaches no node")
	}}}
	srv := httptest.NewServer(gatewaytest.ServerOn(t, n, keys.Plan{RatePerSecond: 1000}).Handler())
	t.Cleanup(srv.Close)
	entry := `"` + strings.Repeat("x", 5000) + `"`
	body := []byte("[" + strings.TrimSuffix(strings.Repeat(entry+",", 1000), ",") + "]")
	statuses := make([]int, 0, 3)
	for range 3 {
		resp, err := client.Post(srv.URL+"/v3/"+gatewaytest.Key, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		statuses = append(statuses, resp.StatusCode)
		if resp.StatusCode == http.StatusTooManyRequests {
			var e struct{ Error struct{ Code int } }
			if err := json.Unmarshal(out, &e); err != nil || e.Error.Code != -32005 {
				t.Fatalf("429 with %s", out)
			}
		}
	}
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusTooManyRequests {
		t.Fatalf("junk bodies answered %v, want 200 then 429", statuses)
	}
}
