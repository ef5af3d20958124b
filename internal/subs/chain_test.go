package subs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/internal/upstream/upstreamtest"
)

// fakeChain is the blocks a test makes, by hash, shared by its fake
// members (every member knows every block, as nodes that gossip do); a
// member serves its own head. Block n of fork f has one log, of address
// logAddr, whose data names the block.
type fakeChain struct {
	mu     sync.Mutex
	blocks map[string]fakeBlock
}

type fakeBlock struct {
	n    uint64
	hash string
	par  string
}

const logAddr = "0x00000000000000000000000000000000000000aa"

var fakeHash = upstreamtest.BlockHash

func newFakeChain() *fakeChain { return &fakeChain{blocks: map[string]fakeBlock{}} }

// add makes blocks from..to of fork f, the first on parent fork pf.
func (c *fakeChain) add(from, to uint64, f, pf byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	par := fakeHash(from-1, pf)
	for n := from; n <= to; n++ {
		h := fakeHash(n, f)
		c.blocks[h] = fakeBlock{n, h, par}
		par = h
	}
	return par
}

func (c *fakeChain) block(hash string) (fakeBlock, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.blocks[hash]
	return b, ok
}

func (b fakeBlock) json() string {
	return fmt.Sprintf(`{"number":"0x%x","hash":"%s","parentHash":"%s","miner":"0x0000000000000000000000000000000000000000","size":"0x220","transactions":[],"uncles":[]}`, b.n, b.hash, b.par)
}

func (b fakeBlock) logJSON() string {
	return fmt.Sprintf(`{"address":"%s","topics":["0x%064x"],"data":"0x%s","blockNumber":"0x%x","transactionHash":"0x%064x","transactionIndex":"0x0","blockHash":"%s","logIndex":"0x0","removed":false}`,
		logAddr, 7, strings.TrimPrefix(b.hash, "0x"), b.n, b.n, b.hash)
}

// fakeMember is one http member of a fakeChain, at its own head; calls
// counts the calls it answered, by method.
type fakeMember struct {
	chain *fakeChain
	srv   *httptest.Server
	head  atomic.Value // string: the head's hash
	calls sync.Map     // method → *atomic.Int64
	// failReads: the next failReads reads of a block (eth_getBlockByHash,
	// eth_getLogs) are answered with an error.
	failReads atomic.Int64
}

func newFakeMember(t testing.TB, c *fakeChain, head string) *fakeMember {
	m := &fakeMember{chain: c}
	m.head.Store(head)
	m.srv = httptest.NewServer(m)
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeMember) count(method string) int64 {
	v, _ := m.calls.LoadOrStore(method, new(atomic.Int64))
	return v.(*atomic.Int64).Load()
}

func (m *fakeMember) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, err := upstreamtest.ReadRequest(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	v, _ := m.calls.LoadOrStore(req.Method, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	head, _ := m.chain.block(m.head.Load().(string))
	if (req.Method == "eth_getBlockByHash" || req.Method == "eth_getLogs") && m.failReads.Add(-1) >= 0 {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"execution aborted (test)"}}`, req.ID)
		return
	}
	result := "null"
	switch req.Method {
	case "eth_blockNumber":
		result = fmt.Sprintf(`"0x%x"`, head.n)
	case "eth_getBlockByNumber":
		result = head.json()
	case "eth_getBlockByHash":
		var h string
		_ = json.Unmarshal(req.Params[0], &h)
		if b, ok := m.chain.block(h); ok {
			result = b.json()
		}
	case "eth_getLogs":
		var f struct{ BlockHash string }
		_ = json.Unmarshal(req.Params[0], &f)
		if b, ok := m.chain.block(f.BlockHash); ok {
			result = "[" + b.logJSON() + "]"
		} else {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"unknown block"}}`, req.ID)
			return
		}
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

// startFakePool starts a pool of http members polled for their head
// blocks (so it keeps the canonical chain by hash), and its hub.
func startFakePool(t testing.TB, members ...*fakeMember) (*upstream.Pool, *Hub) {
	t.Helper()
	return startFakePoolWith(t, Options{}, members...)
}

// startFakePoolWith is startFakePool with the hub's options.
func startFakePoolWith(t testing.TB, opts Options, members ...*fakeMember) (*upstream.Pool, *Hub) {
	t.Helper()
	urls := make([]string, len(members))
	for i, m := range members {
		urls[i] = m.srv.URL
	}
	mcs := upstreamtest.HTTPMembers(t, urls...)
	pool := upstream.NewPool("test", upstream.PoolConfig{HeadBlockMethod: "eth_getBlockByNumber",
		HeadInterval: 10 * time.Millisecond, ProbeInterval: 10 * time.Millisecond, LagMemory: time.Hour, RetryBudget: 5 * time.Second}, mcs...)
	pool.Start(context.Background())
	t.Cleanup(pool.Close)
	h := NewHub(opts, pool)
	t.Cleanup(h.Close)
	return pool, h
}

// chainNote is one notification as the test reads it: a head's or a
// log's block hash, and whether the log was removed.
type chainNote struct {
	id      string
	hash    string
	removed bool
}

func (r *recorder) chainNotes() []chainNote {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]chainNote, 0, len(r.msgs))
	for _, m := range r.msgs {
		var v struct {
			Hash      string
			BlockHash string
			Removed   bool
		}
		_ = json.Unmarshal(m.raw, &v)
		out = append(out, chainNote{id: m.id, hash: v.Hash + v.BlockHash, removed: v.Removed})
	}
	return out
}

// waitNotes waits for n notifications in all and returns those of id.
func waitNotes(t *testing.T, r *recorder, n int, id string) []chainNote {
	t.Helper()
	testenv.WaitFor(t, 10*time.Second, fmt.Sprintf("%d notifications", n), func() bool { return len(r.chainNotes()) >= n })
	var out []chainNote
	for _, c := range r.chainNotes() {
		if c.id == id {
			out = append(out, c)
		}
	}
	return out
}

func notes(id string, removed bool, blocks ...string) []chainNote {
	out := make([]chainNote, len(blocks))
	for i, b := range blocks {
		out[i] = chainNote{id: id, hash: b, removed: removed}
	}
	return out
}

// TestChainSubscriptionsOverHTTPMembers: a pool of http members only
// (none can push) serves newHeads and logs, made from its canonical
// chain: every block once, in order, also a block the poll skipped (after
// a reorganisation, newHeads only its new head, as a node sends); when
// the members switch to a fork (one first, the other later), the logs of
// the abandoned blocks come again with removed: true, oldest first, then
// the fork's logs, each exactly once; when a member dies, the other goes
// on without a gap. Each block's logs are read once, for every logs
// subscription.
func TestChainSubscriptionsOverHTTPMembers(t *testing.T) {
	c := newFakeChain()
	h5 := c.add(1, 5, 0, 0)
	a, b := newFakeMember(t, c, h5), newFakeMember(t, c, h5)
	pool, hub := startFakePool(t, a, b)
	testenv.WaitFor(t, 10*time.Second, "the pool at block 5", func() bool { return pool.Head() == 5 })

	r := newRecorder()
	cl := hub.NewClient(r, 10, nil)
	heads := subscribe(t, cl, `["newHeads"]`)
	logs := subscribe(t, cl, `["logs",{"address":"`+logAddr+`"}]`)
	other := subscribe(t, cl, `["logs",{"address":"0x00000000000000000000000000000000000000bb"}]`)

	// Blocks 6 and 7; a poll sees 7 only: 6 is read by its hash.
	h7 := c.add(6, 7, 0, 0)
	a.head.Store(h7)
	b.head.Store(h7)
	want := notes(logs, false, fakeHash(6, 0), fakeHash(7, 0))
	if got := waitNotes(t, r, 4, logs); !equalNotes(got, want) {
		t.Fatalf("logs %v, want %v", got, want)
	}

	// A fork from block 5 to 8: a switches, b stays on the old blocks a while.
	h8 := c.add(6, 8, 1, 0)
	a.head.Store(h8)
	want = append(want, notes(logs, true, fakeHash(6, 0), fakeHash(7, 0))...)
	want = append(want, notes(logs, false, fakeHash(6, 1), fakeHash(7, 1), fakeHash(8, 1))...)
	if got := waitNotes(t, r, 4+5+1, logs); !equalNotes(got, want) {
		t.Fatalf("logs after the fork %v, want %v", got, want)
	}
	b.head.Store(h8)

	// a dies; b goes on.
	a.srv.Close()
	h10 := c.add(9, 10, 1, 1)
	b.head.Store(h10)
	want = append(want, notes(logs, false, fakeHash(9, 1), fakeHash(10, 1))...)
	if got := waitNotes(t, r, 4+5+1+4, logs); !equalNotes(got, want) {
		t.Fatalf("logs after a died %v, want %v", got, want)
	}
	// newHeads: each block of the chain as it grew (6 and 9, which no poll
	// saw, included); after the reorganisation only its new head, as a
	// node sends.
	wantHeads := notes(heads, false, fakeHash(6, 0), fakeHash(7, 0), fakeHash(8, 1), fakeHash(9, 1), fakeHash(10, 1))
	if got := waitNotes(t, r, 0, heads); !equalNotes(got, wantHeads) {
		t.Fatalf("heads %v, want %v", got, wantHeads)
	}
	if got := waitNotes(t, r, 0, other); len(got) != 0 {
		t.Fatalf("a filter no log matches got %v", got)
	}
	// One eth_getLogs per block that joined the chain, for both logs
	// streams together.
	if n := a.count("eth_getLogs") + b.count("eth_getLogs"); n != 7 {
		t.Errorf("%d eth_getLogs for 7 blocks, want 7", n)
	}
}

func equalNotes(a, b []chainNote) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
