package keyscmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/ident"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// storeFlags run the lifecycle against SQLite (data dir), SQLite (config
// file) and PostgreSQL.
func storeFlags(t *testing.T) map[string][]string {
	dir := t.TempDir()
	cfgDir := t.TempDir()
	cfgPath := filepath.Join(cfgDir, "nodegate.yaml")
	if err := os.WriteFile(cfgPath, []byte("data_dir: "+filepath.Join(cfgDir, "data")+"\nplans:\n  team: {rate_per_second: 1}\n  gold: {failover: true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string][]string{
		"sqlite data dir": {"--data-dir", dir},
		"sqlite config":   {"--config", cfgPath},
		"postgres":        {"--database-url", pgtest.DSN(t)},
	}
}

func TestKeysLifecycle(t *testing.T) {
	for name, flags := range storeFlags(t) {
		t.Run(name, func(t *testing.T) {
			with := func(args ...string) []string { return append(args, flags...) }
			code, out, errOut := run(t, with("create", "--plan", "team", "--name", "app", "--json")...)
			if code != 0 {
				t.Fatalf("create: %d %s", code, errOut)
			}
			var c struct {
				ID, Key, Name, Plan, Status string
			}
			if err := json.Unmarshal([]byte(out), &c); err != nil || !ident.ValidKey(c.Key) || c.ID != keys.IDOf(keys.HashOf(c.Key)) || c.Plan != "team" || c.Status != "active" || c.Name != "app" {
				t.Fatalf("create output %s: %v", out, err)
			}
			// Flags after the id work too.
			code, out, errOut = run(t, with("show", c.ID, "--json")...)
			if code != 0 || strings.Contains(out, c.Key) || !strings.Contains(out, `"id": "`+c.ID+`"`) {
				t.Fatalf("show: %d %s %s", code, out, errOut)
			}
			code, _, errOut = run(t, with("update", c.ID, "--contract", "0x1234")...)
			if code != 2 || !strings.Contains(errOut, `allowed contracts: "0x1234": not a 0x-prefixed 20-byte hex address`) {
				t.Fatalf("bad contract: %d %q", code, errOut)
			}
			code, _, errOut = run(t, with("update", c.ID, "--origin", "https://example.com/path")...)
			if code != 2 || !strings.Contains(errOut, "allowed origins") {
				t.Fatalf("bad origin: %d %q", code, errOut)
			}
			code, out, errOut = run(t, with("update", c.ID, "--new-secret", "--require-secret", "--method", "eth_call,eth_getLogs", "--origin", "https://*.example.com", "--user-agent", "MyApp/1, build 2", "--json")...)
			if code != 0 {
				t.Fatalf("update: %d %s", code, errOut)
			}
			var u struct {
				Secret   string
				Security keys.Security
			}
			if err := json.Unmarshal([]byte(out), &u); err != nil || len(u.Secret) != 32 || !u.Security.SecretRequired ||
				len(u.Security.Methods) != 2 || u.Security.UserAgents[0] != "MyApp/1, build 2" {
				t.Fatalf("update output %s: %v", out, err)
			}
			// A list flag given empty clears the list; others stay.
			code, out, _ = run(t, with("update", c.ID, "--method", "", "--json")...)
			if code != 0 || !strings.Contains(out, `"allowed_methods": []`) || !strings.Contains(out, `"https://*.example.com"`) {
				t.Fatalf("clear methods: %d %s", code, out)
			}
			code, out, _ = run(t, with("show", c.ID)...)
			if code != 0 || !strings.Contains(out, "set, required") || !strings.Contains(out, "https://*.example.com") {
				t.Fatalf("show text: %s", out)
			}
			code, out, _ = run(t, with("list")...)
			if code != 0 || !strings.Contains(out, c.ID) || !strings.Contains(out, "LAST USED") {
				t.Fatalf("list: %s", out)
			}
			code, out, _ = run(t, with("revoke", c.ID)...)
			if code != 0 || !strings.Contains(out, "revoked "+c.ID) {
				t.Fatalf("revoke: %d %s", code, out)
			}
			code, out, _ = run(t, with("list", "--json")...)
			if code != 0 || strings.TrimSpace(out) != "[]" {
				t.Fatalf("list after revoke: %s", out)
			}
			code, out, _ = run(t, with("list", "--all", "--json")...)
			if code != 0 || !strings.Contains(out, `"status": "revoked"`) {
				t.Fatalf("list --all: %s", out)
			}
		})
	}
}

func TestKeysErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, 2, "Usage: nodegate keys"},
		{"unknown command", []string{"rotate"}, 2, `unknown command "rotate"`},
		{"missing id", []string{"show", "--data-dir", dir}, 2, "want 1 argument(s), got 0"},
		{"extra arg", []string{"list", "x", "--data-dir", dir}, 2, "want 0 argument(s), got 1"},
		{"unknown flag", []string{"list", "--colour"}, 2, "flag provided but not defined"},
		{"no plan", []string{"create", "--data-dir", dir}, 2, "plan: required"},
		{"unknown plan", []string{"create", "--plan", "gold", "--data-dir", dir}, 2, `plan: "gold" is not configured (one of core, developer, enterprise, team)`},
		{"unknown id", []string{"show", "ffffffffffff", "--data-dir", dir}, 1, `key "ffffffffffff": no key with this id`},
		{"require secret without one", []string{"create", "--plan", "team", "--require-secret", "--data-dir", dir}, 2, "needs a secret"},
		{"missing config", []string{"list", "--config", filepath.Join(dir, "nope.yaml")}, 2, "read config"},
		{"bad database url", []string{"list", "--database-url", "mysql://x"}, 2, "database_url"},
		{"database down", []string{"list", "--database-url", "postgres://u@127.0.0.1:1/x?connect_timeout=2"}, 1, "cannot reach PostgreSQL"},
		{"bad bool", []string{"update", "x", "--require-secret=maybe", "--data-dir", dir}, 2, "invalid boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, tc.wantCode, tc.wantErr)
			}
		})
	}
	if code, _, _ := run(t, "--help"); code != 0 {
		t.Fatal("--help exits 0")
	}
}

func TestKeysLimitFlags(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "create", "--plan", "core", "--rate", "50", "--daily-credits", "1000", "--json", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, `"rate_per_second": 50`) || !strings.Contains(out, `"daily_credits": 1000`) {
		t.Fatalf("create: %d %s %s", code, out, errOut)
	}
	var c struct{ ID string }
	_ = json.Unmarshal([]byte(out), &c)
	code, out, _ = run(t, "update", c.ID, "--rate", "0", "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "rate:           the plan's") {
		t.Fatalf("update: %d %s", code, out)
	}
	if code, _, errOut = run(t, "update", c.ID, "--daily-credits", "-1", "--data-dir", dir); code != 2 || !strings.Contains(errOut, "daily_credits") {
		t.Fatalf("negative daily: %d %s", code, errOut)
	}
	if code, out, _ = run(t, "usage", c.ID, "--data-dir", dir); code != 0 || !strings.Contains(out, "no usage recorded") {
		t.Fatalf("usage of an unused key: %d %s", code, out)
	}
	if code, _, errOut = run(t, "usage", "000000000000", "--data-dir", dir); code != 1 || !strings.Contains(errOut, "no key") {
		t.Fatalf("usage of an unknown key: %d %s", code, errOut)
	}
}

// TestCreateRefusesUnknownNetwork: a key may only name networks the
// config serves (the embedded default: default and starknet).
func TestCreateRefusesUnknownNetwork(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := run(t, "create", "--plan", "team", "--network", "nosuch", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, `unknown network "nosuch": this config serves default, starknet`) {
		t.Fatalf("create --network nosuch: %d %q", code, errOut)
	}
	code, out, errOut := run(t, "create", "--plan", "team", "--network", "default", "--data-dir", dir, "--json")
	if code != 0 {
		t.Fatalf("create --network default: %d %s", code, errOut)
	}
	var c struct{ ID string }
	_ = json.Unmarshal([]byte(out), &c)
	code, _, errOut = run(t, "update", c.ID, "--network", "default,nosuch", "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, `unknown network "nosuch"`) {
		t.Fatalf("update --network nosuch: %d %q", code, errOut)
	}
}
