package ratelimit_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestUsageSurvivesRestart counts requests across a restart of nodegate:
// what the admin API and `nodegate keys usage` report equals what was sent.
func TestUsageSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Ephemeral(dir)
	cfg.NoStarknet = true
	cfg.Admin.Token = adminToken
	cfg.RateLimit.UsageFlush = 200 * time.Millisecond
	s := startService(t, cfg)
	key := s.GeneratedKey
	if key == "" {
		t.Fatal("no generated key")
	}
	id := keys.IDOf(keys.HashOf(key))
	// A batch: a served call, a method no node knows, an entry that is not a request.
	batch := `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_nope","params":[]},1]`
	send := func(s interface{ URL() string }, singles, batches int) {
		for range singles {
			if status, body := post(t, s.URL(), key, chainID); status != http.StatusOK {
				t.Fatalf("single: %d %s", status, body)
			}
		}
		for range batches {
			if status, body := post(t, s.URL(), key, batch); status != http.StatusOK {
				t.Fatalf("batch: %d %s", status, body)
			}
		}
	}
	send(s, 7, 2)
	closeService(s) // shutdown flushes what the last tick had not

	s = startService(t, cfg)
	send(s, 5, 1)
	want := map[string][2]int64{ // requests, credits
		"eth_chainId": {7 + 2 + 5 + 1, (7 + 2 + 5 + 1) * chainIDCr},
		"(unknown)":   {3, 3 * 80},
		"(invalid)":   {3, 3 * chainIDCr}, // the cheapest method's credits each
	}
	check := func(rows []keys.UsageRow) bool {
		got := map[string][2]int64{}
		for _, r := range rows {
			if r.KeyID != id || r.Network == "" {
				t.Fatalf("row %+v", r)
			}
			got[r.Method] = [2]int64{r.Requests, r.Credits}
		}
		if len(got) != len(want) {
			return false
		}
		for m, w := range want {
			if got[m] != w {
				return false
			}
		}
		return true
	}
	// The admin API sees the counts once the periodic flush ran.
	var last []byte
	testenv.WaitFor(t, 10*time.Second, "usage through the admin API", func() bool {
		req, _ := http.NewRequest("GET", "http://"+s.AdminAddr()+"/admin/keys/"+id+"/usage?days=2", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct{ Usage []keys.UsageRow }
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		last = buf.Bytes()
		if resp.StatusCode != http.StatusOK || json.Unmarshal(last, &body) != nil {
			t.Fatalf("admin usage: %d %s", resp.StatusCode, last)
		}
		return check(body.Usage)
	})
	closeService(s)

	var out, errOut bytes.Buffer
	if code := keyscmd.Run([]string{"usage", id, "--data-dir", dir, "--days", "1", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("keys usage: %d %s", code, errOut.String())
	}
	var rows []keys.UsageRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || !check(rows) {
		t.Fatalf("keys usage --json: %s (%v); want %v", out.String(), err, want)
	}
	out.Reset()
	if code := keyscmd.Run([]string{"usage", id, "--data-dir", dir}, &out, &errOut); code != 0 || !bytes.Contains(out.Bytes(), []byte("eth_chainId")) || !bytes.Contains(out.Bytes(), []byte("total")) {
		t.Fatalf("keys usage table: %d %s %s", code, out.String(), errOut.String())
	}
	t.Logf("nodegate keys usage:\n%s", out.String())
}
