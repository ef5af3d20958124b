package service_test

import (
	"context"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/ratelimit"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestNotifications: a request without an id is a JSON-RPC notification.
// nodegate runs it (a raw transaction sent as one is mined), charges and
// records it like any call, and answers nothing: HTTP 204 for a body of
// notifications only, a batch's answer without their entries, and no
// WebSocket message. Invalid entries without an id are still answered.
func TestNotifications(t *testing.T) {
	s := start(t, nil)
	url := s.URL() + "/v3/" + s.GeneratedKey
	postRaw := func(t *testing.T, body string) (int, string) {
		code, out := testenv.PostJSON(t, url, body)
		return code, string(out)
	}

	t.Run("executed, not answered", func(t *testing.T) {
		acc := s.Node.Accounts()[0]
		to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
		chainID := new(big.Int).SetUint64(s.Node.ChainID())
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 0,
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)}),
			types.LatestSignerForChainID(chainID), acc.Key)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tx.MarshalBinary()
		code, body := postRaw(t, `{"jsonrpc":"2.0","method":"eth_sendRawTransaction","params":["`+hexutil.Encode(raw)+`"]}`)
		if code != http.StatusNoContent || body != "" {
			t.Fatalf("notification answered: HTTP %d %q", code, body)
		}
		testenv.WaitFor(t, 30*time.Second, "the notified transaction's receipt", func() bool {
			r, err := tryResult(url, "eth_getTransactionReceipt", `["`+tx.Hash().Hex()+`"]`)
			return err == nil && string(r) != "null"
		})
	})

	t.Run("batch", func(t *testing.T) {
		code, body := postRaw(t, `[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},`+
			`{"jsonrpc":"2.0","method":"no_such_method"},{"jsonrpc":"2.0","id":7},{"jsonrpc":"2.0"}]`)
		want := `[{"jsonrpc":"2.0","id":1,"result":"0x539"},` +
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request: method must be a string"}},` +
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: method must be a string"}}]`
		if code != http.StatusOK || body != want {
			t.Fatalf("HTTP %d\n%s\nwant\n%s", code, body, want)
		}
	})

	t.Run("batch of notifications only", func(t *testing.T) {
		code, body := postRaw(t, `[{"jsonrpc":"2.0","method":"eth_gasPrice"},{"jsonrpc":"2.0","method":"eth_gasPrice","params":[]}]`)
		if code != http.StatusNoContent || body != "" {
			t.Fatalf("HTTP %d %q", code, body)
		}
	})

	t.Run("websocket", func(t *testing.T) {
		conn, _, err := websocket.DefaultDialer.Dial(wsEndpoint(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, msg := range []string{
			`{"jsonrpc":"2.0","method":"eth_chainId"}`,
			`[{"jsonrpc":"2.0","method":"eth_chainId"},{"jsonrpc":"2.0","method":"eth_blockNumber"}]`,
			`{"jsonrpc":"2.0","id":2,"method":"eth_chainId"}`,
		} {
			if err := conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Fatal(err)
			}
		}
		// The socket answers in its own order; what arrives must be the
		// call's answer only, and nothing after it.
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, got, err := conn.ReadMessage(); err != nil || string(got) != `{"jsonrpc":"2.0","id":2,"result":"0x539"}` {
			t.Fatalf("first message %s %v", got, err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		if _, got, err := conn.ReadMessage(); err == nil {
			t.Fatalf("a notification was answered: %s", got)
		}
	})

	t.Run("charged and counted", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Usage.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := s.KeyStore.Usage(ctx, keys.IDOf(keys.HashOf(s.GeneratedKey)), time.Now().UTC().Format(time.DateOnly))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]keys.UsageRow{}
		for _, r := range rows {
			got[r.Method] = r
		}
		for method, want := range map[string]int64{"eth_sendRawTransaction": 1, "eth_gasPrice": 2, "eth_blockNumber": 1} {
			if r := got[method]; r.Requests != want || r.Credits <= 0 {
				t.Errorf("%s: %d requests, %d credits; want %d requests, charged", method, r.Requests, r.Credits, want)
			}
		}
		if r := got[ratelimit.MethodUnknown]; r.Requests != 1 || r.Errors.Invalid != 1 {
			t.Errorf("the unknown method notified: %+v", r)
		}
	})
}
