package admin_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestDashboardAccounts: the operator dashboard lists the customer
// accounts and their open requests for the custom tier, with the
// request's text escaped.
func TestDashboardAccounts(t *testing.T) {
	bin := testenv.Program(t, "the dashboard test (a real browser)", "chromium", "chromium-browser")
	cfg := servicetest.Config(t)
	cfg.NoStarknet = true
	cfg.Admin.Token = dashToken
	s := servicetest.Start(t, cfg)
	ctx := context.Background()
	_, a, err := s.Accounts.SignUp(ctx, "customer-42@example.com", "a long password", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts.RequestCustom(ctx, a.ID, "<b>archive</b> please"); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, bin, "http://"+s.AdminAddr()+"/dashboard/#token="+dashToken, "--dump-dom"))
	for _, want := range []string{"customer-42@example.com", a.ID, "&lt;b&gt;archive&lt;/b&gt; please", ">grant<", ">disable<"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the operator dashboard lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("DOM:\n%s", dom)
	}
}
