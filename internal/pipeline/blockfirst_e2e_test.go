package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/gatewaytest"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/transport"
)

// embeddedGateway serves the gateway (package gatewaytest: one key, the
// pipeline's stages) in front of one EVM network on node, and returns its
// RPC URL.
func embeddedGateway(t *testing.T, node *evmnode.Node) string {
	t.Helper()
	in := transport.NewInProc(upstream.Func{ID: "embedded", Fn: node.Do, Heads: node.SubscribeHeads}, node.Server())
	pool := upstream.NewPool("test", upstream.PoolConfig{}, upstream.MemberConfig{Upstream: in})
	pool.Start(context.Background())
	t.Cleanup(pool.Close)
	n := &pipeline.Network{Name: "test", Methods: methods.NewTable(methods.FamilyEVM), Upstream: pool, Pool: pool}
	srv := httptest.NewServer(gatewaytest.Server(t, n).Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/v3/" + gatewaytest.Key
}

// TestStorageAtBlockFirst: go-ethereum resolves eth_getStorageAt's block
// before it reads the storage key, so a malformed key with an unknown block
// is answered with the block's error. Through nodegate, every pairing of
// key and block gets the embedded node's own answer, and a malformed key
// never reaches the node.
func TestStorageAtBlockFirst(t *testing.T) {
	node := evmnodetest.Start(t, evmnode.Config{})
	gw := embeddedGateway(t, node)
	const addr = `"0x00000000000000000000000000000000000000aa"`
	keys := []string{`"0x0"`, `"0xzz"`, `"0x` + strings.Repeat("f", 65) + `"`, `"0x1g"`}
	blocks := []string{`"latest"`, `"0x0"`, `"0x7fffffff"`, `"finalized"`,
		`{"blockHash":"0x` + strings.Repeat("22", 32) + `"}`, `{"blockNumber":"0x7fffffff"}`, `{"blockNumber":"0x1"}`}
	for _, k := range keys {
		for _, b := range blocks {
			params := "[" + addr + "," + k + "," + b + "]"
			t.Run(params, func(t *testing.T) {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_getStorageAt","params":%s}`, params)
				resp, err := http.Post(gw, "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				want, err := node.Do(ctx, []byte(body))
				if err != nil {
					t.Fatal(err)
				}
				var g, w map[string]any
				if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
					t.Fatalf("nodegate: %s\nthe node: %s", got, want)
				}
			})
		}
	}
}
