package customer_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

// TestOperatorResetLinkLivesResetTTL: the operator's password reset link
// (POST /admin/accounts/{id}/reset-password, no mail server) works for
// accounts.reset_ttl (1 h by default), not for link_ttl (72 h, an
// invitation's). (The mailed reset link's end is checked by
// TestMailedPagesAnswerTheSame; reset_ttl is at least 1 minute, so a test
// does not wait for a link to end.)
func TestOperatorResetLinkLivesResetTTL(t *testing.T) {
	const email = "reset-ttl@example.com"
	s := start(t, func(c *config.Config) { c.Admin.Token = opToken })
	newBrowser(t, s.URL()).signUp(email, "the first password")
	code, raw := admin(t, s, "POST", "/admin/accounts/"+email+"/reset-password", "")
	var got struct {
		Reset struct {
			URL   string    `json:"url"`
			Until time.Time `json:"expires_at"`
		} `json:"reset"`
	}
	if code != http.StatusOK || json.Unmarshal(raw, &got) != nil || got.Reset.URL == "" {
		t.Fatalf("admin reset-password: %d %s", code, raw)
	}
	if left := time.Until(got.Reset.Until); left > time.Hour+time.Minute || left < 30*time.Minute {
		t.Fatalf("the operator's reset link works for %s more, want about reset_ttl (1 h), not link_ttl (72 h)", left.Round(time.Minute))
	}
}
