package upstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/upstreamtest"
)

// forkNode is a node on loopback serving a chain of hash-linked blocks a
// test sets (its head the last): eth_getBlockByNumber("latest") answers
// the head block, any other call the node's name, to see who answered.
type forkNode struct {
	name string
	srv  *httptest.Server
	mu   sync.Mutex
	head forkBlock
	// rcpt, when set, is the block the node's receipts are in (else its head).
	rcpt *forkBlock
	// fin, when set, is the node's finalized block (else its head).
	fin *forkBlock
	// own is the fork of the node's blocks below its head's parent (0:
	// the original chain; else a chain of its own).
	own byte
	// slowBlocks delays its answers of blocks (read when the call came):
	// the pool learns its head that much late.
	slowBlocks time.Duration
	// slowReceipts delays its receipts; noReceipts answers them null (a
	// node that has not the transaction on its branch).
	slowReceipts time.Duration
	noReceipts   bool
}

// forkBlock is block n of fork f, its parent block n-1 of fork pf.
type forkBlock struct {
	n     uint64
	f, pf byte
}

var hashOf = upstreamtest.BlockHash

func newForkNode(t *testing.T, name string, head forkBlock) *forkNode {
	t.Helper()
	f := &forkNode{name: name, head: head}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// receiptsIn makes the node's receipts name block b.
func (f *forkNode) receiptsIn(b forkBlock) {
	f.mu.Lock()
	f.rcpt = &b
	f.mu.Unlock()
}

// finalizedAt makes the node's finalized block b.
func (f *forkNode) finalizedAt(b forkBlock) {
	f.mu.Lock()
	f.fin = &b
	f.mu.Unlock()
}

func (f *forkNode) set(b forkBlock) {
	f.mu.Lock()
	f.head = b
	f.mu.Unlock()
}

func (f *forkNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var batch []upstreamtest.Request
	if json.Unmarshal(body, &batch) == nil { // an upstream batch: each call answered in turn
		answers := make([]json.RawMessage, len(batch))
		for i, req := range batch {
			answers[i] = json.RawMessage(f.answer(req))
		}
		out, _ := json.Marshal(answers)
		_, _ = w.Write(out)
		return
	}
	var req upstreamtest.Request
	_ = json.Unmarshal(body, &req)
	answer := f.answer(req)
	var slow time.Duration
	f.mu.Lock()
	switch req.Method {
	case "eth_getBlockByNumber":
		slow = f.slowBlocks
	case "eth_getTransactionReceipt":
		slow = f.slowReceipts
	}
	f.mu.Unlock()
	if slow > 0 {
		time.Sleep(slow)
	}
	_, _ = io.WriteString(w, answer)
}

// answer is the node's answer to req.
func (f *forkNode) answer(req upstreamtest.Request) string {
	f.mu.Lock()
	b, in := f.head, f.head
	if f.rcpt != nil {
		in = *f.rcpt
	}
	if f.fin != nil && len(req.Params) > 0 && string(req.Params[0]) == `"finalized"` {
		b = *f.fin
	}
	var n hexutil.Uint64
	if len(req.Params) > 0 && json.Unmarshal(req.Params[0], &n) == nil && uint64(n) < b.n {
		// A block below the head: the head's parent is of its parent's
		// fork, blocks below it of fork own.
		b = forkBlock{n: uint64(n), f: f.own}
		if uint64(n) == f.head.n-1 {
			b.f = f.head.pf
		}
	}
	noReceipts := f.noReceipts
	f.mu.Unlock()
	switch req.Method {
	case "eth_getTransactionReceipt":
		if noReceipts {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, req.ID)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"blockNumber":"0x%x","blockHash":"%s","from":%q}}`,
			req.ID, in.n, hashOf(in.n, in.f), f.name)
	case "eth_getBlockByNumber":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"number":"0x%x","hash":"%s","parentHash":"%s"}}`,
			req.ID, b.n, hashOf(b.n, b.f), hashOf(b.n-1, b.pf))
	case "eth_blockNumber":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"0x%x"}`, req.ID, b.n)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%q}`, req.ID, f.name)
}

// forkMembers are pool members reaching nodes over HTTP, in order.
func forkMembers(t *testing.T, nodes ...*forkNode) []upstream.MemberConfig {
	t.Helper()
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.srv.URL
	}
	return upstreamtest.HTTPMembers(t, urls...)
}

// startForkPool starts a pool over nodes whose heads are polled as blocks,
// with a lag memory and a head wait far longer than the test.
func startForkPool(t *testing.T, nodes ...*forkNode) *upstream.Pool {
	t.Helper()
	return startPool(t, upstream.PoolConfig{
		HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval:    10 * time.Millisecond, LagMemory: time.Hour, HeadWait: time.Hour,
	}, forkMembers(t, nodes...)...)
}

// answeredBy sends a call answered at the head and returns who answered.
func answeredBy(t *testing.T, p *upstream.Pool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, _, err := p.Send(ctx, upstream.Call{Body: callBody, Idempotent: true})
	if err != nil {
		t.Fatalf("a call at the head: %v", err)
	}
	if resp.Err != nil {
		t.Fatalf("a call at the head: %v", resp.Err)
	}
	var who string
	if err := json.Unmarshal(resp.Result, &who); err != nil {
		t.Fatalf("answer %s: %v", resp.Result, err)
	}
	return who
}

// twoAtTen is a pool over nodes a and b, both read at block 10 of fork
// 0: a the head member, b reaching it after.
func twoAtTen(t *testing.T) (a, b *forkNode, p *upstream.Pool) {
	t.Helper()
	a = newForkNode(t, "a", forkBlock{10, 0, 0})
	b = newForkNode(t, "b", forkBlock{9, 0, 0})
	p = startForkPool(t, a, b)
	b.set(forkBlock{10, 0, 0})
	testenv.WaitFor(t, 10*time.Second, "b at 10", func() bool { return p.Members()[1].Head() == 10 })
	return a, b, p
}

// TestPoolHeadFollowsAShorterFork: both members reorganise to a shorter
// fork; the pool's head follows at once (no lag_memory stall) and calls
// at the head are answered, not held for a head no member has any more.
func TestPoolHeadFollowsAShorterFork(t *testing.T) {
	a, b, p := twoAtTen(t)
	a.set(forkBlock{9, 1, 0}) // block 9 of fork 1, on block 8
	b.set(forkBlock{9, 1, 0})
	testenv.WaitFor(t, 10*time.Second, "the pool's head to follow the fork to 9", func() bool { return p.Head() == 9 })
	if h, ok := p.Canonical(9); !ok || h.Hex() != hashOf(9, 1) {
		t.Errorf("canonical 9: %s %v, want fork 1's", h.Hex(), ok)
	}
	answeredBy(t, p)
}

// TestPoolLeavesAMemberOnTheOldFork: the head member reorganises to a
// shorter fork, the other one stays on the old chain a while: the pool's
// head is the fork's at once, and no call goes to the member on the old
// fork (its block 10 is no longer the chain's) until it switches too.
func TestPoolLeavesAMemberOnTheOldFork(t *testing.T) {
	a, b, p := twoAtTen(t)
	a.set(forkBlock{9, 1, 0})
	testenv.WaitFor(t, 10*time.Second, "the pool's head to follow a to 9", func() bool { return p.Head() == 9 })
	for i := range 50 {
		if m := answeredBy(t, p); m != "a" {
			t.Fatalf("call %d answered by %s, on the abandoned fork", i, m)
		}
	}
	b.set(forkBlock{10, 1, 1}) // b switches, and is ahead
	testenv.WaitFor(t, 10*time.Second, "the pool's head to follow b to 10", func() bool { return p.Head() == 10 })
	if h, _ := p.Canonical(10); h.Hex() != hashOf(10, 1) {
		t.Errorf("canonical 10: %s, want fork 1's", h.Hex())
	}
	testenv.WaitFor(t, 10*time.Second, "a to be chosen again once it reaches the fork's head", func() bool {
		a.set(forkBlock{10, 1, 1})
		return answeredBy(t, p) == "a"
	})
}

// TestPoolSkipsAMemberOnAnEqualFork: a member that is not the head
// member reports another block at the head's height: it is on another
// branch and not chosen, until the head member switches to it.
func TestPoolSkipsAMemberOnAnEqualFork(t *testing.T) {
	a := newForkNode(t, "a", forkBlock{10, 0, 0})
	b := newForkNode(t, "b", forkBlock{9, 0, 0})
	p := startForkPool(t, a, b)
	b.set(forkBlock{10, 2, 0})
	testenv.WaitFor(t, 10*time.Second, "b at 10", func() bool { return p.Members()[1].Head() == 10 })
	for i := range 50 {
		if m := answeredBy(t, p); m != "a" {
			t.Fatalf("call %d answered by %s, on another fork", i, m)
		}
	}
	a.set(forkBlock{10, 2, 0})
	testenv.WaitFor(t, 10*time.Second, "the chain to switch to fork 2", func() bool {
		h, _ := p.Canonical(10)
		return h.Hex() == hashOf(10, 2)
	})
	testenv.WaitFor(t, 10*time.Second, "b to be chosen again", func() bool { return answeredBy(t, p) == "b" })
}

// TestHedgeSkipsAMemberOnAnotherBranch: after a reorganisation to a
// shorter fork, a receipt its member on the canonical branch is late on
// is not hedged to the member still on the abandoned branch, whose null
// (it has not the transaction there) would win and be the answer; the
// call waits for the member on the branch. (Issue 31's fleet harness: a
// client given a receipt got null for it.)
func TestHedgeSkipsAMemberOnAnotherBranch(t *testing.T) {
	a, b, p := twoAtTen(t)
	a.set(forkBlock{9, 1, 0}) // a reorganises to a shorter fork; b stays on the old one
	a.receiptsIn(forkBlock{9, 1, 0})
	b.mu.Lock()
	b.noReceipts = true
	b.mu.Unlock()
	testenv.WaitFor(t, 10*time.Second, "the pool's head to follow a to 9", func() bool { return p.Head() == 9 })
	rule := hedgeRule(t, "eth_getTransactionReceipt")
	params := json.RawMessage(`["0x01"]`)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getTransactionReceipt","params":["0x01"]}`)
	receipt := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, _, err := p.Send(ctx, upstream.Call{Body: body, Rule: rule, Params: params, Idempotent: true})
		if err != nil {
			t.Fatal(err)
		}
		return string(resp.Result)
	}
	for i := range 64 { // a's latency, for the hedge delay
		if got := receipt(); got == "null" {
			t.Fatalf("warm-up receipt %d null: asked of the member on the abandoned branch", i)
		}
	}
	a.mu.Lock()
	a.slowReceipts = 200 * time.Millisecond
	a.mu.Unlock()
	sent0, _ := p.Hedges()
	for i := range 3 {
		if got := receipt(); got == "null" {
			t.Fatalf("receipt %d: null, the answer of the member on the abandoned branch", i)
		}
	}
	if sent, _ := p.Hedges(); sent != sent0 {
		t.Errorf("%d hedges sent to a member on another branch", sent-sent0)
	}
}
