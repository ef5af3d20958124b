package service_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

// TestStarknetListener: the embedded default's devnet answers on a listener
// of its own with no Host header to set (what Node's fetch needs), over
// plain HTTP and over the self-signed certificate, which names
// starknet.localhost too; starknet_listen "" turns the listener off.
func TestStarknetListener(t *testing.T) {
	const chainID = `{"jsonrpc":"2.0","id":1,"method":"starknet_chainId","params":[]}`
	for _, tc := range []struct {
		name       string
		tls        bool
		serverName string // TLS name checked against the certificate
	}{
		{"http", false, ""},
		{"https by IP", true, ""},
		{"https as starknet.localhost", true, "starknet.localhost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) { c.TLS.SelfSigned = tc.tls })
			base := s.NetworkURL("starknet")
			wantScheme := map[bool]string{false: "http://", true: "https://"}[tc.tls]
			if !strings.HasPrefix(base, wantScheme+"127.0.0.1:") || base == s.URL() {
				t.Fatalf("starknet listener URL %q (main %q)", base, s.URL())
			}
			client := &http.Client{Timeout: 10 * time.Second}
			if tc.tls {
				cfg := trust(t, s)
				cfg.ServerName = tc.serverName
				client.Transport = &http.Transport{TLSClientConfig: cfg}
			}
			resp, err := client.Post(base+"/v3/"+s.GeneratedKey, "application/json", strings.NewReader(chainID))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			if string(out) != `{"jsonrpc":"2.0","id":1,"result":"0x534e5f4445564e4554"}` {
				t.Fatalf("starknet_chainId on the devnet's listener: %d %s", resp.StatusCode, out)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		s := start(t, func(c *config.Config) { c.StarknetListen = "" })
		if u := s.NetworkURL("starknet"); u != "" {
			t.Fatalf("starknet_listen \"\" still listens on %s", u)
		}
	})
}
