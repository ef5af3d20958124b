package customer_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
)

// TestUsageCSV: the account's and a key's usage download as CSV (one
// row per day, key, network and method, with the error kinds), with the
// calls made; another account's key answers 404.
func TestUsageCSV(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.signUp("csv@example.com", "correct horse battery")
	_, id, u := b.createKey("csv key")
	for range 3 {
		rpc(t, u, "eth_chainId")
	}
	var rows [][]string
	eventually(t, "the key's download lists the three calls", func() bool {
		resp, err := b.c.Get(s.URL() + "/dashboard/keys/" + id + "/usage.csv")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/csv") ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("download: %d %s %s", resp.StatusCode, ct, resp.Header.Get("Content-Disposition"))
		}
		rows, err = csv.NewReader(resp.Body).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows[1:] {
			if r[1] == id && r[3] == "eth_chainId" && r[4] == "3" {
				return true
			}
		}
		return false
	})
	if strings.Join(rows[0], ",") != "day,key_id,network,method,requests,credits,rate_limited,daily_exceeded,invalid,forbidden,limit,upstream,node" {
		t.Fatalf("header %v", rows[0])
	}
	code, body := b.get("/dashboard/usage.csv")
	if code != http.StatusOK || !strings.Contains(body, ","+id+",") {
		t.Fatalf("the account's download: %d\n%s", code, body)
	}
	other := newBrowser(t, s.URL())
	other.signUp("csv-other@example.com", "correct horse battery")
	if code, _ := other.get("/dashboard/keys/" + id + "/usage.csv"); code != http.StatusNotFound {
		t.Fatalf("another account's key: %d, want 404", code)
	}
}
