package customer

import (
	"strings"
	"testing"
)

// TestCurlLine: a new key's curl line asks the network's head block by
// the method its family gives (NetworkURL.HeadMethod), on its HTTP base.
func TestCurlLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    NetworkURL
		want string
	}{
		{"evm", NetworkURL{Name: "main", HeadMethod: "eth_blockNumber", HTTP: "http://127.0.0.1:8545"}, `"method":"eth_blockNumber"`},
		{"starknet", NetworkURL{Name: "sn", HeadMethod: "starknet_blockNumber", HTTP: "http://127.0.0.1:8546"}, `"method":"starknet_blockNumber"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := curlLine(tc.n, "k", "")
			if !strings.Contains(got, tc.want) || !strings.HasSuffix(got, tc.n.HTTP+"/v3/k") {
				t.Fatalf("curl line %q, want %s on %s", got, tc.want, tc.n.HTTP)
			}
		})
	}
}
