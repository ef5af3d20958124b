package keyscmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/testenv"
)

// writePEM writes a fresh P-256 public key to a file and returns its path.
func writePEM(t *testing.T, dir, name string) string {
	t.Helper()
	_, pub := testenv.JWTKey(t)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(pub), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKeysUpdateKeySecurity(t *testing.T) {
	dir := t.TempDir()
	ci, web := writePEM(t, dir, "ci.pem"), writePEM(t, dir, "web.pem")
	for name, flags := range storeFlags(t) {
		t.Run(name, func(t *testing.T) {
			with := func(args ...string) []string { return append(args, flags...) }
			code, out, errOut := run(t, with("create", "--plan", "team", "--name", "app", "--json")...)
			if code != 0 {
				t.Fatalf("create: %d %s", code, errOut)
			}
			var c struct{ ID string }
			if err := json.Unmarshal([]byte(out), &c); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = run(t, with("update", c.ID, "--jwt-key", "ci="+ci, "--jwt-key", "web="+web, "--require-jwt",
				"--allow-ip", "192.0.2.0/24,::ffff:198.51.100.7", "--allow-ip", "2001:db8::/32",
				"--method-rate", "eth_getLogs=5", "--method-rate", "eth_call=50", "--rate", "100", "--daily-credits", "100000", "--json")...)
			if code != 0 {
				t.Fatalf("update: %d %s", code, errOut)
			}
			var r keys.Record
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("update output %s: %v", out, err)
			}
			s := r.Security
			if len(s.JWTKeys) != 2 || s.JWTKeys[0].Name != "ci" || s.JWTKeys[0].Alg != keys.AlgES256 || !s.JWTRequired ||
				strings.Join(s.IPs, " ") != "192.0.2.0/24 198.51.100.7/32 2001:db8::/32" ||
				r.MethodRates["eth_getLogs"] != 5 || r.MethodRates["eth_call"] != 50 || r.RatePerSecond != 100 || r.DailyCredits != 100000 {
				t.Fatalf("update output %s", out)
			}
			// The text view shows them.
			code, out, _ = run(t, with("show", c.ID)...)
			for _, want := range []string{"jwt:            required: ci (ES256), web (ES256)", "addresses:      192.0.2.0/24, 198.51.100.7/32, 2001:db8::/32", "method rates:   eth_call 50/s, eth_getLogs 5/s"} {
				if code != 0 || !strings.Contains(out, want) {
					t.Fatalf("show lacks %q:\n%s", want, out)
				}
			}
			// NAME= removes a key; METHOD=0 a rate; --allow-ip "" clears; --require-jwt=false.
			code, out, errOut = run(t, with("update", c.ID, "--jwt-key", "web=", "--method-rate", "eth_call=0", "--allow-ip", "", "--require-jwt=false", "--json")...)
			if code != 0 {
				t.Fatalf("update: %d %s", code, errOut)
			}
			r = keys.Record{}
			if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Security.JWTKeys) != 1 || r.Security.JWTRequired || len(r.Security.IPs) != 0 || len(r.MethodRates) != 1 {
				t.Fatalf("after removals %s: %v", out, err)
			}
			for _, tc := range []struct {
				name    string
				args    []string
				wantErr string
			}{
				{"missing file", []string{"--jwt-key", "x=" + filepath.Join(dir, "nope.pem")}, "--jwt-key x: read the PEM file"},
				{"not a PEM", []string{"--jwt-key", "x=" + writeText(t, dir, "bad.pem", "hello")}, `jwt_keys: "x": no PEM block`},
				{"a fourth key", []string{"--jwt-key", "a=" + ci, "--jwt-key", "b=" + ci, "--jwt-key", "c=" + web}, "jwt_keys: at most 3 public keys"},
				{"bad CIDR", []string{"--allow-ip", "10.0.0.0/33"}, `allowed ips: "10.0.0.0/33"`},
				{"bad rate", []string{"--method-rate", "eth_getLogs=fast"}, "--method-rate eth_getLogs: want calls per second"},
				{"no NAME=", []string{"--method-rate", "eth_getLogs"}, "want NAME=VALUE"},
				{"require without keys", []string{"--jwt-key", "ci=", "--require-jwt"}, "jwt_required needs a public key"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					code, _, errOut := run(t, with(append([]string{"update", c.ID}, tc.args...)...)...)
					if code != 2 || !strings.Contains(errOut, tc.wantErr) {
						t.Fatalf("exit %d, stderr %q; want 2 with %q", code, errOut, tc.wantErr)
					}
				})
			}
		})
	}
}

func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
