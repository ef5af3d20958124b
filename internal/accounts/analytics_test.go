package accounts_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
)

func TestParsePeriod(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		bad            bool
	}{
		{"the default is the last hour", "", "1h", false},
		{"an hour", "1h", "1h", false},
		{"a day", "24h", "24h", false},
		{"thirty days", "30d", "30d", false},
		{"another duration", "2h", "", true},
		{"a number", "60", "", true},
		{"upper case", "1H", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := accounts.ParsePeriod(tc.in)
			if tc.bad {
				if !accounts.IsInput(err) {
					t.Fatalf("ParsePeriod(%q) = %v, %v; want an input error", tc.in, p, err)
				}
				return
			}
			if err != nil || p.Name != tc.want {
				t.Fatalf("ParsePeriod(%q) = %v, %v; want %s", tc.in, p, err, tc.want)
			}
		})
	}
}

func FuzzParsePeriod(f *testing.F) {
	f.Add("1h")
	f.Add("30d")
	f.Add("\x00")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := accounts.ParsePeriod(s)
		if err == nil && p.Points == 0 {
			t.Fatalf("ParsePeriod(%q) answered an empty period", s)
		}
		if err != nil && len(err.Error()) > 80 {
			t.Fatalf("message too long for %q: %q", s, err)
		}
	})
}

// TestAnalyticsAcrossReplicas: two replicas count calls of one key in
// their own usage aggregator and flush them to one store; the account's
// and the key's analytics show both replicas' calls per method, their
// p50/p95/p99 from the merged histograms, the errors by kind and code,
// and each period's steps.
func TestAnalyticsAcrossReplicas(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(t *testing.T) func() keys.Store
	}{
		{"sqlite", func(t *testing.T) func() keys.Store {
			path := filepath.Join(t.TempDir(), "keys.db")
			return func() keys.Store {
				return mustStore(t, func(ctx context.Context) (keys.Store, error) { return keys.OpenSQLite(ctx, path) })
			}
		}},
		{"postgres", func(t *testing.T) func() keys.Store {
			dsn := pgtest.DSN(t)
			return func() keys.Store {
				return mustStore(t, func(ctx context.Context) (keys.Store, error) { return keys.OpenPostgres(ctx, dsn) })
			}
		}},
	} {
		t.Run(db.name, func(t *testing.T) { checkAnalytics(t, db.open(t)) })
	}
}

func mustStore(t *testing.T, open func(context.Context) (keys.Store, error)) keys.Store {
	t.Helper()
	st, err := open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func checkAnalytics(t *testing.T, open func() keys.Store) {
	ctx := context.Background()
	storeA, storeB := open(), open()
	now := time.Now().UTC()
	svc, err := accounts.New(&keys.Manager{Store: storeA, Plans: keyconfig.Defaults()}, accounts.Options{Signup: accounts.SignupOpen, SignupPlan: "core",
		SessionIdle: time.Hour, SessionMax: time.Hour, DefaultMaxKeys: 10})
	if err != nil {
		t.Fatal(err)
	}
	svc.Now = func() time.Time { return now }
	_, a, err := svc.SignUp(ctx, "measured@example.com", "a long enough password", "")
	if err != nil {
		t.Fatal(err)
	}
	k, err := svc.CreateKey(ctx, a.ID, keys.CreateParams{Name: "measured"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.CreateKey(ctx, a.ID, keys.CreateParams{Name: "idle"})
	if err != nil {
		t.Fatal(err)
	}
	at := ratelimit.StampOf(now)
	earlier := ratelimit.StampOf(now.Add(-30 * time.Minute))
	usageA, usageB := ratelimit.NewUsage(storeA, time.Hour), ratelimit.NewUsage(storeB, time.Hour)
	// Replica A: 90 fast eth_calls; replica B: 8 slower and 2 slow ones,
	// one a revert (-32000); an eth_getLogs refused by a limit half an hour ago.
	for range 90 {
		usageA.AddCall(at, k.ID, "devnet", "eth_call", 80, keys.UsageErrors{}, ratelimit.Answered{Took: 2 * time.Millisecond})
	}
	for range 8 {
		usageB.AddCall(at, k.ID, "devnet", "eth_call", 80, keys.UsageErrors{}, ratelimit.Answered{Took: 40 * time.Millisecond})
	}
	usageB.AddCall(at, k.ID, "devnet", "eth_call", 80, keys.UsageErrors{}, ratelimit.Answered{Took: 900 * time.Millisecond})
	usageB.AddCall(at, k.ID, "devnet", "eth_call", 80, keys.UsageErrors{Node: 1}, ratelimit.Answered{Took: 900 * time.Millisecond, Code: -32000})
	usageA.AddCall(earlier, k.ID, "devnet", "eth_getLogs", 255, keys.UsageErrors{Limit: 1}, ratelimit.Answered{Took: 5 * time.Millisecond, Code: -32005})
	for _, u := range []*ratelimit.Usage{usageA, usageB} {
		if err := u.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, keyID := range []string{"", k.ID} {
		for _, p := range accounts.Periods {
			got, err := svc.Analytics(ctx, a.ID, keyID, p)
			if err != nil {
				t.Fatalf("%s %q: %v", p.Name, keyID, err)
			}
			judgeAnalytics(t, p, got)
		}
	}
	idle, err := svc.Analytics(ctx, a.ID, other.ID, accounts.PeriodHour)
	if err != nil || idle.Requests != 0 || len(idle.Methods) != 0 || len(idle.Points) != 60 {
		t.Fatalf("the idle key's analytics = %+v, %v", idle, err)
	}
	if _, err := svc.Analytics(ctx, "acct_other", k.ID, accounts.PeriodHour); err == nil {
		t.Fatal("another account read this account's key's analytics")
	}
}

func judgeAnalytics(t *testing.T, p accounts.Period, got accounts.Analytics) {
	t.Helper()
	if len(got.Points) != p.Points || got.Requests != 101 || got.Credits != 100*80+255 {
		t.Fatalf("%s: %d points, %d requests, %d credits; want %d, 101, %d", p.Name, len(got.Points), got.Requests, got.Credits, p.Points, 100*80+255)
	}
	var sum int64
	for _, pt := range got.Points {
		sum += pt.Requests
	}
	if last := got.Points[len(got.Points)-1]; sum != 101 || last.Requests < 100 {
		t.Fatalf("%s: points sum to %d, the last has %d: %+v", p.Name, sum, last.Requests, got.Points)
	}
	if len(got.Methods) != 2 || got.Methods[0].Method != "eth_call" {
		t.Fatalf("%s: methods %+v", p.Name, got.Methods)
	}
	call := got.Methods[0]
	near := func(ms accounts.Millis, want float64) bool { return float64(ms) >= want*7/8 && float64(ms) <= want*9/8 }
	if call.Timed != 100 || !near(call.P50, 2) || !near(call.P95, 40) || !near(call.P99, 900) {
		t.Fatalf("%s: eth_call timed %d, p50 %v p95 %v p99 %v; want 100, about 2, 40, 900 ms", p.Name, call.Timed, call.P50, call.P95, call.P99)
	}
	if call.Errors.Node != 1 || got.Errors.Limit != 1 {
		t.Fatalf("%s: errors %+v, eth_call's %+v", p.Name, got.Errors, call.Errors)
	}
	want := map[accounts.CodeCount]bool{{Method: "eth_call", Code: -32000, Calls: 1}: true, {Method: "eth_getLogs", Code: -32005, Calls: 1}: true}
	if len(got.Codes) != 2 || !want[got.Codes[0]] || !want[got.Codes[1]] {
		t.Fatalf("%s: codes %+v", p.Name, got.Codes)
	}
}
