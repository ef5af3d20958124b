package service

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/cli/keyscmd"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
	"github.com/nodegate/nodegate/internal/testenv"
)

const adminToken = "service-test-admin-token"

func testConfig(t *testing.T) config.Config {
	cfg := config.Ephemeral(t.TempDir())
	cfg.Admin.Token = adminToken
	// The imported test chain: the same embedded node the conformance test uses.
	cfg.Node.ChainDir = "../../testdata/execution-apis/tests"
	return cfg
}

func start(t *testing.T, cfg config.Config) *Service {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { stop(t, s) })
	return s
}

func stop(t *testing.T, s *Service) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Close(ctx)
}

const blockNumber = `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`

func post(t *testing.T, s *Service, key string) (int, string) {
	t.Helper()
	status, b := testenv.PostJSON(t, s.URL()+"/v3/"+key, blockNumber)
	return status, string(b)
}

// TestFirstStartCreatesAndReusesKey: a fresh data dir gets a team key on the
// first start; the next start on the same dir creates none and the first
// key still works.
func TestFirstStartCreatesAndReusesKey(t *testing.T) {
	cfg := testConfig(t)
	first := start(t, cfg)
	key := first.GeneratedKey
	if key == "" {
		t.Fatal("no key created on the first start")
	}
	if st, body := post(t, first, key); st != 200 || !strings.Contains(body, `"result"`) {
		t.Fatalf("first key: %d %s", st, body)
	}
	k, ok := first.Keys.Lookup(key)
	if !ok || k.Plan.Name != "team" || !k.Plan.Failover {
		t.Fatalf("first key = %+v", k)
	}
	stop(t, first)
	second := start(t, cfg)
	if second.GeneratedKey != "" {
		t.Fatal("a second key was created on a later start")
	}
	if st, body := post(t, second, key); st != 200 {
		t.Fatalf("first key after restart: %d %s", st, body)
	}
	recs, err := second.KeyManager.List(context.Background())
	if err != nil || len(recs) != 1 {
		t.Fatalf("store holds %d keys, %v", len(recs), err)
	}
}

// TestStaticKeysAlongsideStore: api_keys are accepted (team plan) and no
// first key is generated.
func TestStaticKeysAlongsideStore(t *testing.T) {
	cfg := testConfig(t)
	static := "0123456789abcdef0123456789abcdef"
	cfg.APIKeys = []string{static}
	s := start(t, cfg)
	if s.GeneratedKey != "" {
		t.Fatal("a key was generated although api_keys are set")
	}
	if st, body := post(t, s, static); st != 200 {
		t.Fatalf("static key: %d %s", st, body)
	}
	if st, body := post(t, s, "ffffffffffffffffffffffffffffffff"); st != 401 || body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"invalid API key"}}` {
		t.Fatalf("unknown key: %d %s", st, body)
	}
}

// TestFleetSharesPostgres: two replicas on one PostgreSQL. A key created
// with the CLI works on both; revoked through replica A's admin API it is
// refused by both within 1 s.
func TestFleetSharesPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	cfgA, cfgB := testConfig(t), testConfig(t)
	cfgA.DatabaseURL, cfgB.DatabaseURL = dsn, dsn
	a, b := start(t, cfgA), start(t, cfgB)
	if a.GeneratedKey == "" || b.GeneratedKey != "" {
		t.Fatalf("first key made: A %v B %v; want exactly one, by the first replica", a.GeneratedKey != "", b.GeneratedKey != "")
	}
	var out, errOut bytes.Buffer
	if code := keyscmd.Run([]string{"create", "--plan", "developer", "--name", "fleet", "--database-url", dsn, "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("keys create: %d %s", code, errOut.String())
	}
	var created struct{ ID, Key string }
	if err := json.Unmarshal(out.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Service{a, b} {
		testenv.WaitFor(t, time.Second, "new key accepted", func() bool { st, _ := post(t, r, created.Key); return st == 200 })
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+a.AdminAddr()+"/admin/keys/"+created.ID+"/revoke", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("admin revoke: %d", resp.StatusCode)
	}
	for _, r := range []*Service{a, b} {
		testenv.WaitFor(t, time.Second, "revoked key refused", func() bool {
			st, body := post(t, r, created.Key)
			return st == 401 && body == `{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"invalid API key"}}`
		})
	}
}

func TestStartDatabaseDown(t *testing.T) {
	cfg := testConfig(t)
	cfg.DatabaseURL = "postgres://nodegate:pw@127.0.0.1:1/x?connect_timeout=2"
	_, err := Start(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "cannot reach PostgreSQL at postgres://nodegate:xxxxx@127.0.0.1:1") {
		t.Fatalf("err = %v", err)
	}
}

// TestAdminListenerWithoutToken: no token, no admin listener (the port
// stays free for another instance).
func TestAdminListenerWithoutToken(t *testing.T) {
	cfg := testConfig(t)
	cfg.Admin.Token = ""
	t.Setenv(config.AdminTokenEnv, "")
	s := start(t, cfg)
	if addr := s.AdminAddr(); addr != "" {
		t.Fatalf("admin listener on %s without a token", addr)
	}
}

// TestListenerTakenNamesSetting: a second instance whose admin or main
// port is taken fails with an error that names the flag to change.
func TestListenerTakenNamesSetting(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name string
		edit func(*config.Config)
		want string
	}{
		{"admin", func(c *config.Config) { c.Admin.Listen = taken.Addr().String() }, "--admin-listen"},
		{"metrics", func(c *config.Config) { c.Metrics.Listen = taken.Addr().String() }, "--metrics-listen"},
		{"main", func(c *config.Config) { c.Listen = taken.Addr().String() }, "--listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t)
			tc.edit(&cfg)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := Start(ctx, cfg)
			if err == nil {
				stop(t, s)
				t.Fatal("started on a taken port")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), taken.Addr().String()) {
				t.Fatalf("error %q does not name %s", err, tc.want)
			}
		})
	}
}

// TestReloadShutdown: SIGHUP's reload changes how the next stop drains:
// the drain delay and the calls' timeout come from the running config.
func TestReloadShutdown(t *testing.T) {
	cfg := testConfig(t)
	s := start(t, cfg)
	next := cfg
	next.Shutdown.DrainDelay, next.Shutdown.Timeout = 7*time.Second, 3*time.Second
	if err := s.Reload(context.Background(), next); err != nil {
		t.Fatal(err)
	}
	if s.DrainDelay() != 7*time.Second || s.ShutdownTimeout() != 3*time.Second {
		t.Fatalf("after reload: drain delay %v, timeout %v", s.DrainDelay(), s.ShutdownTimeout())
	}
}
