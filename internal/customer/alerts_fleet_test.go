package customer_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nodegate/nodegate/internal/accounts/smtptest"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/service"
)

// TestAlertsExactlyOnceOnTwoReplicas: two nodegate replicas share
// PostgreSQL (keys, accounts, usage, alert claims) and Redis (the
// credits); an account's calls go to both in turn until its credits
// cross 75%, 85% and 100% of its plan's 800 a day. Each threshold is
// mailed once: not once per replica that saw it, and checking again on
// both replicas at once, many times, claims nothing more.
func TestAlertsExactlyOnceOnTwoReplicas(t *testing.T) {
	mail := smtptest.Start(t)
	dsn := pgtest.DSN(t)
	rc := redistest.Require(t)
	prefix := redistest.Prefix(t, rc)
	fleet := func(c *config.Config) {
		c.DatabaseURL = dsn
		c.RateLimit.RedisURL = "redis://" + redistest.Addr() + "/0"
		c.RateLimit.RedisPrefix = prefix
		c.Accounts.Signup = "invite"
		c.Accounts.SMTP = config.SMTP{Addr: mail.Addr(), From: "nodegate@example.com"}
		core := c.Plans[config.PlanCore]
		core.DailyCredits = 800
		c.Plans[config.PlanCore] = core
	}
	a, b := start(t, fleet), start(t, fleet)
	l, err := a.Accounts.Invite(context.Background(), "fleet-alerts@example.com")
	if err != nil {
		t.Fatal(err)
	}
	owner := joinTeam(t, b.URL(), l.URL, "fleet alerts password")
	_, _, u := owner.createKey("alerted")
	path := u[strings.Index(u, "/v3/"):]

	// 80 credits a call: the tenth reaches 800 (later calls are refused).
	var turn atomic.Int64
	eventually(t, "the account's credits today reach 800 across both replicas", func() bool {
		replica := []*service.Service{a, b}[turn.Add(1)%2]
		rpc(t, replica.URL()+path, "eth_blockNumber")
		as, err := a.Accounts.List(context.Background())
		if err != nil || len(as) != 1 {
			t.Fatalf("accounts: %v %v", as, err)
		}
		us, err := b.Accounts.Usage(context.Background(), as[0].ID, "")
		return err == nil && us.TodayCredits >= 800
	})
	eventually(t, "three alert mails (75, 85, 100%) besides the invitation", func() bool { return len(mail.Messages()) >= 4 })

	var wg sync.WaitGroup
	var claimed atomic.Int64
	for _, s := range []*service.Service{a, b, a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := s.Accounts.CheckAlerts(context.Background())
			if err != nil {
				t.Error(err)
			}
			claimed.Add(int64(n))
		}()
	}
	wg.Wait()
	if n := claimed.Load(); n != 0 {
		t.Fatalf("checking again on both replicas claimed %d more alerts", n)
	}
	msgs := mail.Messages()
	for _, pct := range []string{"75%", "85%", "100%"} {
		found := 0
		for _, m := range msgs[1:] {
			if strings.Contains(m.Data, "used "+pct+" of its daily credits") {
				found++
			}
		}
		if found != 1 {
			t.Errorf("%d mails for %s, want 1", found, pct)
		}
	}
	if len(msgs) != 4 {
		t.Fatalf("%d mails, want the invitation and 3 alerts", len(msgs))
	}
}
