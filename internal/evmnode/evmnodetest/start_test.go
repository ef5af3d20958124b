package evmnodetest

import (
	"context"
	"testing"

	"github.com/nodegate/nodegate/internal/testenv"
)

// TestStartHTTP: the node answers on its HTTP endpoint.
func TestStartHTTP(t *testing.T) {
	n := StartHTTP(t)
	if a := testenv.Call(t, n.HTTPEndpoint(), "eth_chainId", ""); a.Error != nil || string(a.Result) != `"0x539"` {
		t.Fatalf("eth_chainId: %s %+v", a.Result, a.Error)
	}
	if out, err := n.Do(context.Background(), []byte(testenv.RPCBody("eth_blockNumber", ""))); err != nil || len(out) == 0 {
		t.Fatalf("in process: %s %v", out, err)
	}
}
