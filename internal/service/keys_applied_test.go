package service

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRevokeThroughReplicaAppliesAtOnce: with key_refresh at an hour, a
// key created through this replica's admin API is served at once, and
// once revoked through it is refused from the very next request.
func TestRevokeThroughReplicaAppliesAtOnce(t *testing.T) {
	cfg := testConfig(t)
	cfg.KeyRefresh = time.Hour
	s := start(t, cfg)
	admin := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+s.AdminAddr()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out map[string]any
		if resp.StatusCode/100 != 2 || json.Unmarshal(raw, &out) != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		return out
	}
	made := admin(http.MethodPost, "/admin/keys", `{"name":"at-once","plan":"team"}`)
	key, id := made["key"].(string), made["id"].(string)
	if st, body := post(t, s, key); st != 200 {
		t.Fatalf("a key created through this replica: %d %s", st, body)
	}
	admin(http.MethodPost, "/admin/keys/"+id+"/revoke", "")
	if st, body := post(t, s, key); st != 401 {
		t.Fatalf("a key revoked through this replica: %d %s, want 401 at once", st, body)
	}
}
