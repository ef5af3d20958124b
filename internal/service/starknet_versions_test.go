package service_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/config"
)

// TestStarknetVersionPaths: the embedded default's devnet speaks Starknet
// JSON-RPC 0.10 at /v3/<key> and 0.8 at /v3/<key>/rpc/v0_8, on its own
// listener and by Host on the main one; both see one devnet (a transaction
// sent through one is read through the other) and rollup_pendingTransactions
// answers the same on both; a version a network does not serve is 404,
// and the key is still required on a versioned path.
func TestStarknetVersionPaths(t *testing.T) {
	s := start(t, func(c *config.Config) {
		// Blocks only on devnet_createBlock: what is pending stays pending
		// between the reads below, however busy the machine.
		c.Networks = c.EffectiveNetworks()
		c.Networks[1].Starknet.Devnet.BlockTime = 0
	})
	key := s.GeneratedKey
	sn := s.NetworkURL("starknet")
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(t *testing.T, url, host, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if host != "" {
			req.Host = host
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	const spec = `{"jsonrpc":"2.0","id":1,"method":"starknet_specVersion","params":[]}`
	tests := []struct {
		name, url, host, body string
		wantStatus            int
		want                  string // a part of the answer
	}{
		{name: "default is 0.10", url: sn + "/v3/" + key, body: spec, wantStatus: 200, want: `"result":"0.10.0"`},
		{name: "v0_8", url: sn + "/v3/" + key + "/rpc/v0_8", body: spec, wantStatus: 200, want: `"result":"0.8.1"`},
		{name: "v0_8 by Host on the main listener", url: s.URL() + "/v3/" + key + "/rpc/v0_8", host: "starknet.localhost", body: spec, wantStatus: 200, want: `"result":"0.8.1"`},
		{name: "0.8 tag on v0_8", url: sn + "/v3/" + key + "/rpc/v0_8", body: `{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithTxHashes","params":["pending"]}`, wantStatus: 200, want: `"parent_hash"`},
		{name: "0.10 tag on the default", url: sn + "/v3/" + key, body: `{"jsonrpc":"2.0","id":1,"method":"starknet_getBlockWithTxHashes","params":["pre_confirmed"]}`, wantStatus: 200, want: `"block_number":1`},
		{name: "accounts on v0_8", url: sn + "/v3/" + key + "/rpc/v0_8", body: `{"jsonrpc":"2.0","id":1,"method":"devnet_getPredeployedAccounts","params":[]}`, wantStatus: 200, want: `"initial_balance":"1000000000000000000000"`},
		{name: "unknown version", url: sn + "/v3/" + key + "/rpc/v0_7", body: spec, wantStatus: 404, want: "serves no /rpc/v0_7 path (it serves /rpc/v0_8 besides its default)"},
		{name: "EVM network has no versions", url: s.URL() + "/v3/" + key + "/rpc/v0_8", body: `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, wantStatus: 404, want: "speaks its default version only"},
		{name: "key still required", url: sn + "/v3/nokey/rpc/v0_8", body: spec, wantStatus: 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, out := post(t, tt.url, tt.host, tt.body)
			if status != tt.wantStatus || !strings.Contains(out, tt.want) {
				t.Fatalf("%d %s; want %d containing %s", status, out, tt.wantStatus, tt.want)
			}
		})
	}
	t.Run("after reloads", func(t *testing.T) {
		// A reload of the limits only keeps the networks (WithLimits); one
		// that changes the starknet network rebuilds it: either way the
		// versioned path still answers.
		next := s.Config
		next.Limits.GasCapFactor = 3
		if err := s.Reload(t.Context(), next); err != nil {
			t.Fatal(err)
		}
		if status, out := post(t, sn+"/v3/"+key+"/rpc/v0_8", "", spec); status != 200 || !strings.Contains(out, `"result":"0.8.1"`) {
			t.Fatalf("after a limits reload: %d %s", status, out)
		}
		next.Networks = append([]config.Network(nil), next.Networks...)
		next.Networks[1].IdempotentMethods = []string{"starknet_getStorageAt"}
		if err := s.Reload(t.Context(), next); err != nil {
			t.Fatal(err)
		}
		if status, out := post(t, sn+"/v3/"+key+"/rpc/v0_8", "", spec); status != 200 || !strings.Contains(out, `"result":"0.8.1"`) {
			t.Fatalf("after a rebuilding reload: %d %s", status, out)
		}
	})
	t.Run("one devnet behind both", func(t *testing.T) {
		accounts := `{"jsonrpc":"2.0","id":1,"method":"devnet_getPredeployedAccounts","params":[]}`
		_, a10 := post(t, sn+"/v3/"+key, "", accounts)
		_, a08 := post(t, sn+"/v3/"+key+"/rpc/v0_8", "", accounts)
		if a10 != a08 {
			t.Fatalf("accounts differ:\n%s\n%s", a10, a08)
		}
		const v1 = `{"jsonrpc":"2.0","id":2,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x1","max_fee":"0x10","signature":["0x1","0x2"],"nonce":"0x0","sender_address":"0x123","calldata":["0x1","0x2"]}]}`
		_, sent := post(t, sn+"/v3/"+key+"/rpc/v0_8", "", v1)
		hash, ok := strings.CutPrefix(sent, `{"jsonrpc":"2.0","id":2,"result":{"transaction_hash":"`)
		if !ok {
			t.Fatalf("add over v0_8: %s", sent)
		}
		hash, _, _ = strings.Cut(hash, `"`)
		rollup := `{"jsonrpc":"2.0","id":3,"method":"rollup_pendingTransactions","params":[]}`
		_, p10 := post(t, sn+"/v3/"+key, "", rollup)
		_, p08 := post(t, sn+"/v3/"+key+"/rpc/v0_8", "", rollup)
		if !strings.Contains(p10, hash) || p10 != p08 {
			t.Fatalf("rollup_pendingTransactions:\n0.10 %s\n0.8  %s", p10, p08)
		}
		_, st := post(t, sn+"/v3/"+key, "", `{"jsonrpc":"2.0","id":4,"method":"starknet_getTransactionStatus","params":["`+hash+`"]}`)
		if !strings.Contains(st, `"finality_status":"PRE_CONFIRMED"`) {
			t.Fatalf("status over 0.10 of a transaction sent over 0.8: %s", st)
		}
	})
}
