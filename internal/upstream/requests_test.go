package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// otherFamily names every method a pool asks of its own otherwise than
// any family nodegate has, as a third family would.
var otherFamily = familykind.Kind{Name: "other", HeadMethod: "other_head", ChainIDMethod: "other_chainId",
	HeadBlockMethod: "other_blockByNumber", TxByHashMethod: "other_txByHash"}

// familyNode answers only otherFamily's methods (and the write it is
// sent, refused as "nonce too low"), recording every method it is asked.
type familyNode struct {
	mu    sync.Mutex
	asked []string
}

func (n *familyNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params []any           `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	n.mu.Lock()
	n.asked = append(n.asked, req.Method)
	n.mu.Unlock()
	result := ""
	switch req.Method {
	case otherFamily.HeadMethod:
		result = `"0x10"`
	case otherFamily.ChainIDMethod:
		result = `"0x5"`
	case otherFamily.HeadBlockMethod:
		number := map[any]string{"latest": "0x10", "finalized": "0x8", "0x0": "0x0"}[req.Params[0]]
		result = fmt.Sprintf(`{"number":%q,"hash":"0x%064x","parentHash":"0x%064x","gasLimit":"0x1c9c380"}`, number, 0xb10c, 0xb10b)
	case otherFamily.TxByHashMethod:
		result = `{"hash":"0x01"}`
	case "eth_sendRawTransaction":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"nonce too low"}}`, req.ID)
		return
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"the method %s does not exist"}}`, req.ID, req.Method)
		return
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

func (n *familyNode) methods() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Compact(slices.Sorted(slices.Values(n.asked)))
}

// TestOwnRequestsUseTheFamilysMethods: every call a pool makes of its own
// — its head polls, chain-id check, chain identity (chain id and genesis),
// finalized block, gas limit, and the question whether a member that
// refused a signed transaction as "nonce too low" holds it — is made with
// the methods of the family it is configured with, and no other.
func TestOwnRequestsUseTheFamilysMethods(t *testing.T) {
	t.Parallel()
	node := &familyNode{}
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	cfg := upstream.PoolConfig{
		HeadMethod: otherFamily.HeadMethod, HeadBlockMethod: otherFamily.HeadBlockMethod,
		ChainIDMethod: otherFamily.ChainIDMethod, TxByHashMethod: otherFamily.TxByHashMethod,
		NumericChainID: true, ChainID: 5, TrackFinalized: true, NoNewHeads: true, HeadInterval: 10 * time.Millisecond,
	}
	p := startPool(t, cfg, httpMember(t, srv.URL), httpMember(t, srv.URL)) // two: a write goes to each
	testenv.WaitFor(t, 5*time.Second, "the member's chain and finalized block", func() bool {
		return p.Chain() != "" && p.Finalized() == 8
	})
	if want := fmt.Sprintf("5/0x%064x", 0xb10c); p.Chain() != want {
		t.Errorf("chain %q, want %q", p.Chain(), want)
	}
	if got := p.GasLimit(); got != 30_000_000 {
		t.Errorf("gas limit %d, want 30000000", got)
	}

	tx, raw := signedTx(t)
	params := `["` + raw + `"]`
	rule, _ := methods.NewTable(methods.FamilyEVM).Lookup("eth_sendRawTransaction")
	resp, _, err := p.Send(context.Background(), upstream.Call{
		Body: jsonrpc.AppendRequest(nil, 1, "eth_sendRawTransaction", json.RawMessage(params)), Rule: rule, Params: json.RawMessage(params),
	})
	if want := `"` + tx.Hash().Hex() + `"`; err != nil || string(resp.Result) != want {
		t.Fatalf("a write the member holds: %s %v (err %v), want its hash %s", resp.Result, resp.Err, err, want)
	}

	want := []string{"eth_sendRawTransaction", otherFamily.HeadBlockMethod, otherFamily.ChainIDMethod, otherFamily.TxByHashMethod}
	if got := node.methods(); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("the member was asked %q, want %q", got, slices.Sorted(slices.Values(want)))
	}
}
