package upstream_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// chainNode is a JSON-RPC node on loopback that answers as a node at its
// head does: blocks, receipts (of transactions placed in blocks by the
// test) and logs up to its head; null or "beyond current head" past it. It
// takes signed transactions once ("already known" after that) and counts
// the calls of each method.
type chainNode struct {
	srv  *httptest.Server
	head atomic.Uint64

	mu    sync.Mutex
	txs   map[string]uint64 // hash → block
	sent  map[string]bool   // raw transactions taken
	calls map[string]int
	// refuse, when set, is the error message a write gets.
	refuse string
}

func newChainNode(t *testing.T, head uint64) *chainNode {
	t.Helper()
	n := &chainNode{txs: map[string]uint64{}, sent: map[string]bool{}, calls: map[string]int{}}
	n.head.Store(head)
	n.srv = httptest.NewServer(n)
	t.Cleanup(n.srv.Close)
	return n
}

func (n *chainNode) count(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[method]
}

func (n *chainNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "not one call", http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	n.calls[req.Method]++
	n.mu.Unlock()
	head := n.head.Load()
	answer := func(result string) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}
	fail := func(code int, msg string) {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, req.ID, code, msg)
	}
	number := func(raw json.RawMessage) uint64 {
		var s string
		_ = json.Unmarshal(raw, &s)
		if s == "latest" || s == "" {
			return head
		}
		v, _ := hexutil.DecodeUint64(s)
		return v
	}
	switch req.Method {
	case "eth_blockNumber":
		answer(strconv.Quote(hexutil.EncodeUint64(head)))
	case "eth_getBlockByNumber":
		if b := number(req.Params[0]); b <= head {
			answer(fmt.Sprintf(`{"number":"%s","hash":"0x%x"}`, hexutil.EncodeUint64(b), b))
			return
		}
		answer("null")
	case "eth_getTransactionReceipt", "eth_getTransactionByHash":
		var hash string
		_ = json.Unmarshal(req.Params[0], &hash)
		n.mu.Lock()
		b, ok := n.txs[hash]
		n.mu.Unlock()
		if ok && b <= head {
			answer(fmt.Sprintf(`{"transactionHash":%q,"blockHash":"0x%x","blockNumber":"%s"}`, hash, b, hexutil.EncodeUint64(b)))
			return
		}
		answer("null")
	case "eth_getLogs":
		var f struct{ ToBlock json.RawMessage }
		_ = json.Unmarshal(req.Params[0], &f)
		if number(f.ToBlock) > head {
			fail(-32602, "invalid block range params: block range extends beyond current head block")
			return
		}
		answer(`[]`)
	case "eth_sendRawTransaction":
		var raw string
		_ = json.Unmarshal(req.Params[0], &raw)
		n.mu.Lock()
		known, refuse := n.sent[raw], n.refuse
		n.sent[raw] = true
		n.mu.Unlock()
		switch {
		case refuse != "":
			fail(-32000, refuse)
		case known:
			fail(-32000, "already known")
		default:
			answer(`"0xtaken"`)
		}
	default:
		answer(`"` + strings.TrimPrefix(req.Method, "eth_") + `"`)
	}
}

// has reports whether the node took raw.
func (n *chainNode) has(raw string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sent[raw]
}

// place puts transaction hash in block b.
func (n *chainNode) place(hash string, b uint64) {
	n.mu.Lock()
	n.txs[hash] = b
	n.mu.Unlock()
}
