package customer_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/accounts/smtptest"
	"github.com/nodegate/nodegate/internal/config"
)

var webhookSecretRe = regexp.MustCompile(`id="webhook-secret">(whsec_[0-9a-f]+)<`)

// TestAlertsFromThePages: on a plan of 800 daily credits, an account
// sets its own 10% threshold and a webhook on the alerts page (the
// secret shown once, a reload shows it no more; an http:// URL refused);
// calls crossing 10%, 75%, 85% and 100% bring one mail each, and the
// page lists each mail delivered and each webhook POST refused by the
// service's own guard (the receiver is on a loopback address).
func TestAlertsFromThePages(t *testing.T) {
	mail := smtptest.Start(t)
	s := start(t, func(c *config.Config) {
		c.Accounts.Signup = "invite"
		c.Accounts.SMTP = config.SMTP{Addr: mail.Addr(), From: "nodegate@example.com"}
		core := c.Plans[config.PlanCore]
		core.DailyCredits = 800
		c.Plans[config.PlanCore] = core
	})
	l, err := s.Accounts.Invite(context.Background(), "alerts@example.com")
	if err != nil {
		t.Fatal(err)
	}
	b := joinTeam(t, s.URL(), l.URL, "alerts password ok")
	_, _, u := b.createKey("alerted")

	b.get("/dashboard/alerts")
	if code, body := b.submit("/dashboard/alerts", url.Values{"action": {"settings"}, "custom_percent": {"10"}, "mail": {"1"}, "webhook_url": {"http://127.0.0.1:9/hook"}}); code != http.StatusBadRequest || !strings.Contains(body, "webhook:") {
		t.Fatalf("an http:// webhook: %d, want 400 naming the webhook\n%s", code, body)
	}
	code, body := b.submit("/dashboard/alerts", url.Values{"action": {"settings"}, "custom_percent": {"10"}, "mail": {"1"}, "webhook_url": {"https://127.0.0.1:9/hook"}})
	if code != http.StatusOK || !webhookSecretRe.MatchString(body) {
		t.Fatalf("saving the alerts does not show the new secret once: %d\n%s", code, body)
	}
	if _, again := b.get("/dashboard/alerts?secret=1"); webhookSecretRe.MatchString(again) {
		t.Fatal("a reload shows the webhook secret again")
	}

	// 80 credits a call, within the plan's rate: the tenth reaches 800.
	eventually(t, "the account's credits today reach 800", func() bool {
		rpc(t, u, "eth_blockNumber")
		as, err := s.Accounts.List(context.Background())
		if err != nil || len(as) != 1 {
			t.Fatalf("accounts: %v %v", as, err)
		}
		us, err := s.Accounts.Usage(context.Background(), as[0].ID, "")
		return err == nil && us.TodayCredits >= 800
	})
	eventually(t, "four alert mails (10, 75, 85, 100%) besides the invitation", func() bool { return len(mail.Messages()) >= 5 })
	eventually(t, "the alerts page lists the deliveries", func() bool {
		_, page := b.get("/dashboard/alerts")
		return strings.Count(page, `class="status-delivered"`) == 4 && strings.Count(page, "not a public address") >= 4
	})
	if n := len(mail.Messages()); n != 5 {
		t.Fatalf("%d mails, want the invitation and 4 alerts", n)
	}
	for _, pct := range []string{"10%", "75%", "85%", "100%"} {
		found := 0
		for _, m := range mail.Messages()[1:] {
			if strings.Contains(m.Data, "used "+pct+" of its daily credits") {
				found++
			}
		}
		if found != 1 {
			t.Errorf("%d mails for %s, want 1", found, pct)
		}
	}
}
