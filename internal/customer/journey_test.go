package customer_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestJourneyHTTP: sign up, create a key, call with the URL the page
// shows, see the call on the usage page, upgrade, revoke: the key is
// refused with 401.
func TestJourneyHTTP(t *testing.T) {
	s := start(t, nil)
	b := newBrowser(t, s.URL())
	b.signUp("alice@example.com", "correct horse battery")
	key, id, u := b.createKey("my app")
	if !strings.HasSuffix(u, "/v3/"+key) || !strings.HasPrefix(u, s.URL()) {
		t.Fatalf("URL on the page %q does not call key %s at %s", u, key, s.URL())
	}
	eventually(t, "the new key works", func() bool { code, _ := rpc(t, u, "eth_blockNumber"); return code == 200 })
	eventually(t, "the usage page shows the call", func() bool {
		_, body := b.get("/dashboard/keys/" + id + "/usage")
		return strings.Contains(body, "<td>eth_blockNumber</td>")
	})
	_, body := b.get("/dashboard/plan")
	if !strings.Contains(body, `id="upgrade"`) {
		t.Fatalf("a core account is not offered the upgrade:\n%s", body)
	}
	if code, body, loc := b.post("/dashboard/plan/upgrade", nil); code != http.StatusSeeOther {
		t.Fatalf("upgrade: %d %s\n%s", code, loc, body)
	}
	eventually(t, "the key has the team plan", func() bool {
		k, ok := s.Keys.ByID(id)
		return ok && k.Plan.Name == "team" && k.Plan.Failover
	})
	b.get("/dashboard/keys/" + id)
	if code, body, _ := b.post("/dashboard/keys/"+id+"/revoke", url.Values{}); code != http.StatusBadRequest || !strings.Contains(body, "confirm:") {
		t.Fatalf("revoke without the confirmation: %d, want 400 naming confirm\n%s", code, body)
	}
	if code, body := b.get("/dashboard/keys/" + id + "/revoke"); code != http.StatusOK || !strings.Contains(body, `name="confirm" value="yes"`) {
		t.Fatalf("the revoke page does not ask: %d\n%s", code, body)
	}
	if code, body, _ := b.post("/dashboard/keys/"+id+"/revoke", url.Values{"confirm": {"yes"}}); code != http.StatusSeeOther {
		t.Fatalf("revoke: %d\n%s", code, body)
	}
	eventually(t, "the revoked key is refused", func() bool { code, _ := rpc(t, u, "eth_blockNumber"); return code == 401 })
}
