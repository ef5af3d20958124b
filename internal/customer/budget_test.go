package customer_test

import (
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
)

// TestAccountDailyBudget: the daily credits of an account's keys are
// counted together: once one key spent the plan's day, the account's
// other key is refused (429, daily) while an operator's key on the same
// plan is not; the usage page counts the refusal as a daily one.
func TestAccountDailyBudget(t *testing.T) {
	s := start(t, func(c *config.Config) {
		core := c.Plans["core"]
		core.DailyCredits = 200 // eth_blockNumber costs 80: two calls a day
		c.Plans["core"] = core
	})
	b := newBrowser(t, s.URL())
	b.signUp("budget@example.com", "a long password")
	_, _, u1 := b.createKey("first")
	_, id2, u2 := b.createKey("second")
	eventually(t, "both keys work", func() bool {
		c1, _ := rpc(t, u1, "eth_chainId")
		c2, _ := rpc(t, u2, "eth_chainId")
		return c1 == 200 && c2 == 200
	})
	for range 2 {
		if code, body := rpc(t, u1, "eth_blockNumber"); code != 200 {
			t.Fatalf("the first key within the day's credits: %d %s", code, body)
		}
	}
	code, body := rpc(t, u2, "eth_blockNumber")
	if code != 429 || !strings.Contains(body, "daily request count exceeded") {
		t.Fatalf("the account's second key after the first spent the day: %d %s, want 429 daily", code, body)
	}
	eventually(t, "the usage page counts a daily refusal", func() bool {
		_, page := b.get("/dashboard/keys/" + id2 + "/usage")
		return strings.Contains(page, "<td>daily credits</td><td class=\"num\">1</td>")
	})
}
