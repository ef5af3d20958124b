package admin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/testenv"
)

func pemJSON(t *testing.T) string {
	t.Helper()
	_, pub := testenv.JWTKey(t)
	b, _ := json.Marshal(pub)
	return string(b)
}

func TestAdminKeySecurity(t *testing.T) {
	hs, _ := newAdmin(t, token)
	auth := "Bearer " + token
	st, created := call(t, hs, auth, "POST", "/admin/keys", `{"name":"app","plan":"team","settings":{"allowed_ips":["::ffff:192.0.2.1"],"method_rates":{"eth_getLogs":5}}}`)
	if st != 201 {
		t.Fatalf("create: %d %v", st, created)
	}
	id := created["id"].(string)
	if sec := created["security"].(map[string]any); sec["allowed_ips"].([]any)[0] != "192.0.2.1/32" || created["method_rates"].(map[string]any)["eth_getLogs"] != 5.0 {
		t.Fatalf("create output %v", created)
	}
	st, upd := call(t, hs, auth, "PATCH", "/admin/keys/"+id, `{"jwt_keys":{"ci":`+pemJSON(t)+`},"jwt_required":true,"rate_per_second":50,"daily_credits":1000}`)
	if st != 200 {
		t.Fatalf("update: %d %v", st, upd)
	}
	sec := upd["security"].(map[string]any)
	jk := sec["jwt_keys"].([]any)
	if len(jk) != 1 || jk[0].(map[string]any)["name"] != "ci" || jk[0].(map[string]any)["alg"] != "ES256" || sec["jwt_required"] != true || upd["rate_per_second"] != 50.0 {
		t.Fatalf("update output %v", upd)
	}
	st, shown := call(t, hs, auth, "GET", "/admin/keys/"+id, "")
	if st != 200 || len(shown["security"].(map[string]any)["jwt_keys"].([]any)) != 1 {
		t.Fatalf("show: %d %v", st, shown)
	}
	for _, tc := range []struct {
		name, body, msg string
	}{
		{"bad PEM", `{"jwt_keys":{"x":"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"}}`, `jwt_keys: "x": read the public key`},
		{"remove the last key while required", `{"jwt_keys":{"ci":""}}`, "jwt_required needs a public key"},
		{"bad CIDR", `{"allowed_ips":["10.0.0.0/40"]}`, `allowed ips: "10.0.0.0/40"`},
		{"bad method rate", `{"method_rates":{"eth_getLogs":-5}}`, "method_rates: eth_getLogs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, out := call(t, hs, auth, "PATCH", "/admin/keys/"+id, tc.body)
			if st != 400 || !strings.Contains(out["error"].(string), tc.msg) {
				t.Fatalf("%d %v, want 400 with %q", st, out, tc.msg)
			}
		})
	}
}
