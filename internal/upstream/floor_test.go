package upstream_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// prunedNode is a chainNode that no longer holds the state of blocks
// below stateFloor nor the bodies, receipts and logs of blocks below
// logsFloor, and says so as go-ethereum does (a hash-scheme node's
// "missing trie node", history pruning's 4444 "pruned history
// unavailable"). The calls of each method are counted by the chainNode.
type prunedNode struct {
	*chainNode
	srv                   *httptest.Server
	stateFloor, logsFloor uint64
}

func newPrunedNode(t *testing.T, head, stateFloor, logsFloor uint64) *prunedNode {
	t.Helper()
	n := &prunedNode{chainNode: newChainNode(t, head), stateFloor: stateFloor, logsFloor: logsFloor}
	n.srv = httptest.NewServer(n)
	t.Cleanup(n.srv.Close)
	return n
}

func (n *prunedNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	if block, kind, ok := oldBlockOfCall(req.Method, req.Params); ok {
		if kind == "state" && block < n.stateFloor {
			n.chainNode.mu.Lock()
			n.chainNode.calls[req.Method]++
			n.chainNode.mu.Unlock()
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"missing trie node 5e0c1a6b1dc8f2b2bd3b6a0a0d9b0a3e2d7c8f2b1e4a5d6c7b8a9f0e1d2c3b4a (path ) state 0x5e0c1a6b1dc8f2b2bd3b6a0a0d9b0a3e2d7c8f2b1e4a5d6c7b8a9f0e1d2c3b4a is not available"}}`, req.ID)
			return
		}
		if kind == "logs" && block < n.logsFloor {
			n.chainNode.mu.Lock()
			n.chainNode.calls[req.Method]++
			n.chainNode.mu.Unlock()
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":4444,"message":"pruned history unavailable"}}`, req.ID)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	n.chainNode.ServeHTTP(w, r)
}

// oldBlockOfCall is the block a test call reads old data at, and its kind.
func oldBlockOfCall(method string, params []json.RawMessage) (uint64, string, bool) {
	num := func(raw json.RawMessage) (uint64, bool) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		v, err := hexutil.DecodeUint64(s)
		return v, err == nil
	}
	switch method {
	case "eth_getBalance", "eth_getCode", "eth_call":
		if len(params) > 1 {
			v, ok := num(params[1])
			return v, "state", ok
		}
	case "eth_getBlockReceipts":
		if len(params) > 0 {
			v, ok := num(params[0])
			return v, "logs", ok
		}
	case "eth_getLogs":
		var f struct{ FromBlock json.RawMessage }
		if len(params) > 0 && json.Unmarshal(params[0], &f) == nil {
			v, ok := num(f.FromBlock)
			return v, "logs", ok
		}
	}
	return 0, "", false
}

// oldCalls are a client's calls of old state and old logs, at blocks
// 0x10 to 0x1f.
func oldCalls(i int) (method, params string) {
	b := hexutil.EncodeUint64(uint64(0x10 + i%16))
	if i%2 == 0 {
		return "eth_getCode", `["0x00000000000000000000000000000000000000aa","` + b + `"]`
	}
	return "eth_getLogs", `[{"fromBlock":"` + b + `","toBlock":"` + b + `"}]`
}

// TestFloorsLearnedFromAnswers: a pruned member's answer below its floor
// moves its floor and the call goes to a member that serves the block:
// no pruned answer reaches the client, and once a floor is learned the
// pruned member gets no more calls below it (no wasted attempt).
func TestFloorsLearnedFromAnswers(t *testing.T) {
	archive, pruned := newChainNode(t, 100), newPrunedNode(t, 100, 50, 60)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour}, httpMember(t, archive.srv.URL), httpMember(t, pruned.srv.URL))
	oldOnPruned := func() int { return pruned.count("eth_getCode") + pruned.count("eth_getLogs") }
	for i := range 64 {
		method, params := oldCalls(i)
		if resp := send(t, p, method, params, true); resp.Err != nil {
			t.Fatalf("call %d %s %s answered %v", i, method, params, resp.Err)
		}
	}
	st := p.Status()[1]
	if st.StateFrom < 0x11 || st.StateFrom > 50 || st.LogsFrom < 0x11 || st.LogsFrom > 60 {
		t.Fatalf("pruned member's floors after %d pruned answers: state %d logs %d", oldOnPruned(), st.StateFrom, st.LogsFrom)
	}
	// Below the floors learned, no call reaches the pruned member.
	before := oldOnPruned()
	for i := range 64 {
		method, params := oldCalls(i)
		if b := uint64(0x10 + i%16); (method == "eth_getCode" && b >= st.StateFrom) || (method == "eth_getLogs" && b >= st.LogsFrom) {
			continue
		}
		if resp := send(t, p, method, params, true); resp.Err != nil {
			t.Fatalf("call %d %s %s answered %v", i, method, params, resp.Err)
		}
	}
	if got := oldOnPruned() - before; got != 0 {
		t.Fatalf("below its learned floors the pruned member still got %d calls", got)
	}
	// Above its floors it serves as any member does.
	above := pruned.count("eth_getCode")
	for range 64 {
		send(t, p, "eth_getCode", `["0x00000000000000000000000000000000000000aa","0x50"]`, true)
	}
	if got := pruned.count("eth_getCode") - above; got == 0 {
		t.Fatal("the pruned member got no call of 64 above its floor")
	}
}

// TestFloorsProbed: a pool given the family's probe reads finds each
// member's floors by binary search before any call, so a pruned member
// never gets a call below them.
func TestFloorsProbed(t *testing.T) {
	archive, pruned := newChainNode(t, 100), newPrunedNode(t, 100, 50, 60)
	cfg := upstream.PoolConfig{HeadInterval: 20 * time.Millisecond, StateProbeMethod: "eth_getBalance", LogsProbeMethod: "eth_getBlockReceipts"}
	p := startPool(t, cfg, httpMember(t, archive.srv.URL), httpMember(t, pruned.srv.URL))
	testenv.WaitFor(t, 30*time.Second, "the pruned member's floors probed", func() bool {
		st := p.Status()[1]
		return st.StateFrom == 50 && st.LogsFrom == 60
	})
	if st := p.Status()[0]; st.StateFrom != 0 || st.LogsFrom != 0 {
		t.Fatalf("archive member's floors: %+v", st)
	}
	if n := pruned.count("eth_getBalance"); n > 10 {
		t.Fatalf("the state floor took %d probes, want a binary search (at most 10 for head 100)", n)
	}
	for i := range 64 {
		method, params := oldCalls(i)
		if resp := send(t, p, method, params, true); resp.Err != nil {
			t.Fatalf("call %d answered %v", i, resp.Err)
		}
	}
	if got := pruned.count("eth_getCode") + pruned.count("eth_getLogs"); got != 0 {
		t.Fatalf("the pruned member got %d calls below its probed floors, want 0", got)
	}
}

// TestFloorsNoMemberServes: a call naming a block below every member's
// floor is answered at once, without being sent, with an error naming
// the kind, the block and the earliest block a member serves.
func TestFloorsNoMemberServes(t *testing.T) {
	a, b := newPrunedNode(t, 5000, 1000, 0), newPrunedNode(t, 5000, 2000, 0)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour},
		upstream.MemberConfig{Upstream: httpUpstream(t, a.srv.URL), StateFrom: upstream.Floor{From: 1000, Set: true}},
		upstream.MemberConfig{Upstream: httpUpstream(t, b.srv.URL), StateFrom: upstream.Floor{From: 2000, Set: true}})
	cases := []struct{ name, method, params, want string }{
		{"state", "eth_getCode", `["0x00000000000000000000000000000000000000aa","0x10"]`, "no upstream serves state at block 0x10 (earliest 0x3e8)"},
		{"call", "eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"0x3e7"]`, "no upstream serves state at block 0x3e7 (earliest 0x3e8)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := send(t, p, tc.method, tc.params, true)
			if resp.Err == nil || resp.Err.Code != upstream.CodePrunedHistory || resp.Err.Message != tc.want {
				t.Fatalf("answer %+v, want %q", resp.Err, tc.want)
			}
		})
	}
	if n := a.count("eth_getCode") + b.count("eth_getCode") + a.count("eth_call") + b.count("eth_call"); n != 0 {
		t.Fatalf("%d calls were sent although no member serves their block", n)
	}
	if resp := send(t, p, "eth_getCode", `["0x00000000000000000000000000000000000000aa","0x3e8"]`, true); resp.Err != nil {
		t.Fatalf("a call at the lowest floor: %v", resp.Err)
	}
}

// httpUpstream is an HTTP upstream of url.
func httpUpstream(t *testing.T, url string) upstream.Upstream {
	t.Helper()
	return httpMember(t, url).Upstream
}
