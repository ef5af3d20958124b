package customer_test

import (
	"encoding/csv"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var latencyRowRe = regexp.MustCompile(`<tr><td>eth_blockNumber</td><td class="num">([0-9,]+)</td><td class="num">[0-9,]+</td>\s*<td class="num">([0-9.]+)</td><td class="num">([0-9.]+)</td><td class="num">([0-9.]+)</td>`)

// TestAnalyticsPageShowsLatency: calls through a real nodegate reach
// the account's and the key's analytics pages (per period) with their
// latency per method, the errors by code, and the CSV download; another
// account cannot read the key's page, and a bad period is a 400.
func TestAnalyticsPageShowsLatency(t *testing.T) {
	svc := start(t, nil)
	b := newBrowser(t, svc.URL())
	b.signUp("measured@example.com", "a long enough password")
	_, id, url0 := b.createKey("measured")
	for range 5 {
		if code, body := rpc(t, url0, "eth_blockNumber"); code != http.StatusOK {
			t.Fatalf("eth_blockNumber: %d %s", code, body)
		}
	}
	if code, _ := rpc(t, url0, "eth_noSuchMethod"); code != http.StatusOK {
		t.Fatalf("unknown method: %d", code)
	}
	for _, page := range []string{"/dashboard/analytics", "/dashboard/keys/" + id + "/analytics"} {
		for _, period := range []string{"1h", "24h", "30d"} {
			var body string
			eventually(t, page+"?period="+period+" shows the calls", func() bool {
				var code int
				code, body = b.get(page + "?period=" + period)
				m := latencyRowRe.FindStringSubmatch(body)
				return code == http.StatusOK && m != nil && m[1] == "5"
			})
			m := latencyRowRe.FindStringSubmatch(body)
			for i, q := range []string{"p50", "p95", "p99"} {
				if ms, err := strconv.ParseFloat(m[i+2], 64); err != nil || ms <= 0 {
					t.Fatalf("%s?period=%s: eth_blockNumber's %s is %q", page, period, q, m[i+2])
				}
			}
			if !strings.Contains(body, `<td class="num">-32601</td>`) {
				t.Fatalf("%s?period=%s does not show the unknown method's code -32601", page, period)
			}
		}
	}
	resp, err := b.c.Get(b.base + "/dashboard/analytics.csv?period=24h")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(rows) < 2 || rows[0][0] != "period" {
		t.Fatalf("analytics CSV: %d %v %v", resp.StatusCode, rows, err)
	}
	var found bool
	for _, r := range rows[1:] {
		if r[1] == "eth_blockNumber" && r[2] == "5" && r[0] == "24h" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the CSV has no row of the 5 eth_blockNumber calls: %v", rows)
	}
	if code, _ := b.get("/dashboard/analytics?period=2h"); code != http.StatusBadRequest {
		t.Fatalf("a bad period answered %d, want 400", code)
	}
	other := newBrowser(t, svc.URL())
	other.signUp("other@example.com", "a long enough password")
	if code, body := other.get("/dashboard/keys/" + id + "/analytics"); code != http.StatusNotFound {
		t.Fatalf("another account's key's analytics: %d\n%.300s", code, body)
	}
}
