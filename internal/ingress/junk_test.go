package ingress_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestJunkIsRateLimited: a 5 MB body of 1,000 entries that are not
// requests spends the cheapest method's credits per entry (5 x 1,000 on a
// 1,000-credit-per-second key), so sending it again at once is refused
// with 429 -32005 instead of being served for free for ever.
func TestJunkIsRateLimited(t *testing.T) {
	s := startGateway(t, func(c *config.Config) { c.Plans["team"] = config.Plan{RatePerSecond: 1000} })
	entry := `"` + strings.Repeat("x", 5000) + `"`
	body := []byte("[" + strings.TrimSuffix(strings.Repeat(entry+",", 1000), ",") + "]")
	statuses := make([]int, 0, 3)
	for range 3 {
		resp, err := client.Post(s.URL()+"/v3/"+s.GeneratedKey, "application/json", bytes.NewReader(body))
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
