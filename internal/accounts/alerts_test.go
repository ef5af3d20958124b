package accounts_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/accounts"
	"github.com/nodegate/nodegate/internal/accounts/smtptest"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
	"github.com/nodegate/nodegate/internal/testenv"
)

// receiver is an HTTPS webhook receiver that checks each POST's
// signature and can fail the first ones.
type receiver struct {
	srv    *httptest.Server
	secret atomic.Value // string
	fail   atomic.Int32 // answer 500 to this many more POSTs
	mu     sync.Mutex
	got    []string // bodies whose signature verified
	bad    []string // why a POST was refused
}

func startReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
		if r.fail.Add(-1) >= 0 {
			http.Error(w, "down for a moment", http.StatusInternalServerError)
			return
		}
		secret, _ := r.secret.Load().(string)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := accounts.VerifySignature(secret, req.Header.Get(accounts.SignatureHeader), body, time.Now(), 5*time.Minute); err != nil {
			r.bad = append(r.bad, err.Error())
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		r.got = append(r.got, string(body))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) bodies() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string{}, r.got...), append([]string{}, r.bad...)
}

// replica is one nodegate's accounts on a store.
func replica(t *testing.T, store keys.Store, rc *receiver, mail *smtptest.Server) *accounts.Service {
	t.Helper()
	km := &keys.Manager{Store: store, Plans: keyconfig.Defaults()}
	svc, err := accounts.New(km, accounts.Options{Signup: accounts.SignupOpen, SignupPlan: "core", SessionIdle: time.Hour, SessionMax: time.Hour,
		LinkTTL: time.Hour, Mailer: &accounts.SMTP{Addr: mail.Addr(), From: "alerts@example.com"}, WebhookClient: rc.srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// useCredits adds credits to a key's usage today, as a usage flush does.
func useCredits(t *testing.T, store keys.Store, keyID string, credits int64) {
	t.Helper()
	db, err := keys.SQLOf(store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.DB.Exec(db.Q("INSERT INTO nodegate_usage (day, key_id, network, method, requests, credits) VALUES (?, ?, 'devnet', ?, 1, ?)"),
		keys.UsageDay(time.Now()), keyID, "m"+time.Now().Format("150405.000000000"), credits); err != nil {
		t.Fatal(err)
	}
}

// alertFleet is an account with a key and a webhook, seen by n replicas
// of one store.
func alertFleet(t *testing.T, open func() keys.Store, n int) ([]*accounts.Service, keys.Store, string, *receiver, *smtptest.Server) {
	t.Helper()
	rc, mail := startReceiver(t), smtptest.Start(t)
	var reps []*accounts.Service
	var first keys.Store
	for i := range n {
		st := open()
		if i == 0 {
			first = st
		}
		reps = append(reps, replica(t, st, rc, mail))
	}
	ctx := context.Background()
	// Signed up where no mail server is set (open sign-up is immediate).
	direct, err := accounts.New(&keys.Manager{Store: first, Plans: keyconfig.Defaults()}, accounts.Options{Signup: accounts.SignupOpen, SignupPlan: "core",
		SessionIdle: time.Hour, SessionMax: time.Hour, DefaultMaxKeys: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, a, err := direct.SignUp(ctx, "alerted@example.com", "a long enough password", "")
	if err != nil {
		t.Fatal(err)
	}
	k, err := direct.CreateKey(ctx, a.ID, keys.CreateParams{Name: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := reps[1%n].SetAlerts(ctx, a.ID, accounts.AlertsPatch{WebhookURL: ptr(rc.srv.URL + "/hook")})
	if err != nil || secret == "" {
		t.Fatalf("register the webhook: %q, %v", secret, err)
	}
	rc.secret.Store(secret)
	return reps, first, k.ID, rc, mail
}

func ptr[T any](v T) *T { return &v }

// roundAll runs fn on every replica at once, repeat times each, and sums
// what they return.
func roundAll(t *testing.T, reps []*accounts.Service, repeat int, fn func(*accounts.Service) (int, error)) int {
	t.Helper()
	var total atomic.Int64
	var wg sync.WaitGroup
	for _, r := range reps {
		for range repeat {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := fn(r)
				if err != nil {
					t.Error(err)
				}
				total.Add(int64(n))
			}()
		}
	}
	wg.Wait()
	return int(total.Load())
}

// TestAlertsExactlyOnceAcrossReplicas: two replicas on one PostgreSQL
// check and deliver at once, many times: the 75% crossing is claimed
// once, its webhook POST arrives once with a valid signature and its
// mail once; crossing 85% and 100% later sends each once more.
func TestAlertsExactlyOnceAcrossReplicas(t *testing.T) {
	dsn := pgtest.DSN(t)
	open := func() keys.Store {
		st, err := keys.OpenPostgres(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	reps, store, keyID, rc, mail := alertFleet(t, open, 2)
	check := func(r *accounts.Service) (int, error) { return r.CheckAlerts(context.Background()) }
	deliver := func(r *accounts.Service) (int, error) { return r.DeliverDue(context.Background()) }

	if n := roundAll(t, reps, 4, check); n != 0 {
		t.Fatalf("no usage yet, %d alerts claimed", n)
	}
	useCredits(t, store, keyID, 2_300_000) // 76.7% of core's 3,000,000
	if n := roundAll(t, reps, 8, check); n != 1 {
		t.Fatalf("crossing 75%%: %d alerts claimed by two replicas checking 8 times each, want 1", n)
	}
	if n := roundAll(t, reps, 4, deliver); n != 2 {
		t.Fatalf("%d deliveries made, want 2 (one mail, one webhook POST)", n)
	}
	got, bad := rc.bodies()
	if len(got) != 1 || !strings.Contains(got[0], `"threshold":75`) || len(bad) != 0 {
		t.Fatalf("the receiver got %d signed POSTs %v (refused: %v), want one for 75%%", len(got), got, bad)
	}
	if m, ok := mail.Wait(1, 30*time.Second); !ok || !strings.Contains(m.Data, "75%") {
		t.Fatalf("no alert mail: %+v", m)
	}

	useCredits(t, store, keyID, 700_000) // 100%
	if n := roundAll(t, reps, 8, check); n != 2 {
		t.Fatalf("crossing 85%% and 100%%: %d alerts claimed, want 2", n)
	}
	roundAll(t, reps, 4, deliver)
	got, _ = rc.bodies()
	if len(got) != 3 {
		t.Fatalf("the receiver got %d POSTs, want 3 (75, 85, 100): %v", len(got), got)
	}
	if len(mail.Messages()) != 3 {
		t.Fatalf("%d alert mails, want 3", len(mail.Messages()))
	}
}

// TestAlertWebhookRetried: a receiver that fails twice gets the POST on
// the third try, after the backoff (the clock moved); the deliveries list
// says delivered after 3 attempts. A custom threshold alerts too.
func TestAlertWebhookRetried(t *testing.T) {
	dir := t.TempDir()
	open := func() keys.Store {
		st, err := keys.OpenSQLite(context.Background(), filepath.Join(dir, "keys.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	reps, store, keyID, rc, _ := alertFleet(t, open, 1)
	r := reps[0]
	ctx := context.Background()
	k, err := r.Key(ctx, accountOf(t, r), keyID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.SetAlerts(ctx, k.Account, accounts.AlertsPatch{CustomPercent: ptr(10), Mail: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	clock := time.Now()
	r.Now = func() time.Time { return clock }
	rc.fail.Store(2)
	useCredits(t, store, keyID, 400_000) // 13%: the custom 10% only
	if n, err := r.CheckAlerts(ctx); n != 1 || err != nil {
		t.Fatalf("crossing the custom 10%%: %d claimed, %v", n, err)
	}
	for i := range 3 {
		if _, err := r.DeliverDue(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := r.DeliverDue(ctx); n != 0 {
			t.Fatalf("try %d: delivered again before the backoff", i+1)
		}
		clock = clock.Add(time.Duration(10<<i) * time.Second)
	}
	ds, err := r.Deliveries(ctx, k.Account)
	if err != nil || len(ds) != 1 || ds[0].Status != accounts.DeliveryDelivered || ds[0].Attempts != 3 || ds[0].Threshold != 10 {
		t.Fatalf("deliveries = %+v, %v; want one webhook delivered after 3 attempts", ds, err)
	}
	testenv.WaitFor(t, 10*time.Second, "the signed POST", func() bool { got, _ := rc.bodies(); return len(got) == 1 })
}

// accountOf is the one account of a fresh store.
func accountOf(t *testing.T, r *accounts.Service) string {
	t.Helper()
	as, err := r.List(context.Background())
	if err != nil || len(as) != 1 {
		t.Fatalf("accounts: %v, %v", as, err)
	}
	return as[0].ID
}
