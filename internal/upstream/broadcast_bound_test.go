package upstream_test

import (
	"bytes"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// slowWrites is a member that holds every eth_sendRawTransaction until
// released (a node that stopped answering writes) and answers the rest as
// its chainNode does. It counts the writes it holds at once.
type slowWrites struct {
	*chainNode
	gate chan struct{}

	mu            sync.Mutex
	holding, most int
	received      int
}

func newSlowWrites(t *testing.T, head uint64) (*slowWrites, string) {
	t.Helper()
	s := &slowWrites{chainNode: newChainNode(t, head), gate: make(chan struct{})}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.release) // before srv.Close: the held requests end first
	return s, srv.URL
}

func (s *slowWrites) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.gate:
	default:
		close(s.gate)
	}
}

func (s *slowWrites) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if bytes.Contains(body, []byte("eth_sendRawTransaction")) {
		s.mu.Lock()
		s.holding++
		s.received++
		s.most = max(s.most, s.holding)
		s.mu.Unlock()
		<-s.gate
		s.mu.Lock()
		s.holding--
		s.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.chainNode.ServeHTTP(w, r)
}

func (s *slowWrites) counts() (holding, most, received int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holding, s.most, s.received
}

// signedTxs are n signed transfers (nonces 0…n-1), as raw hex.
func signedTxs(t *testing.T, n int) []string {
	t.Helper()
	signer, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0xaa")
	var out []string
	for i := range n {
		tx, err := types.SignNewTx(signer, types.LatestSignerForChainID(big.NewInt(5)),
			&types.DynamicFeeTx{ChainID: big.NewInt(5), Nonce: uint64(i), GasFeeCap: big.NewInt(1e9), Gas: 21000, To: &to})
		if err != nil {
			t.Fatal(err)
		}
		bin, _ := tx.MarshalBinary()
		out = append(out, hexutil.Encode(bin))
	}
	return out
}

// TestBroadcastBoundedPerMember: writes broadcast to a member that holds
// them (a slow node) pile up there only to the pool's bound; the rest are
// not sent to it and are counted dropped, while the member that answers
// takes every one. Once the slow member answers, nothing is left pending.
func TestBroadcastBoundedPerMember(t *testing.T) {
	const bound, writes = 4, 12
	fast := newChainNode(t, 10)
	slow, slowURL := newSlowWrites(t, 10)
	p := startPool(t, upstream.PoolConfig{HeadInterval: time.Hour, MaxPendingWrites: bound, AttemptTimeout: time.Minute}, httpMember(t, fast.srv.URL), httpMember(t, slowURL))
	txs := signedTxs(t, writes)
	for _, raw := range txs {
		if got := send(t, p, "eth_sendRawTransaction", `["`+raw+`"]`, false); string(got.Result) != `"0xtaken"` {
			t.Fatalf("write answered %s %v, want the fast member's", got.Result, got.Err)
		}
	}
	testenv.WaitFor(t, 10*time.Second, "the slow member to hold its bound of writes", func() bool {
		holding, _, _ := slow.counts()
		return holding == bound
	})
	if _, most, received := slow.counts(); most > bound || received != bound {
		t.Fatalf("the slow member held %d writes at once (%d received), want at most %d", most, received, bound)
	}
	slowStatus := func() upstream.MemberStatus { return p.Status()[1] } // members in the order given
	if st := slowStatus(); st.WritesDropped != writes-bound || st.WritesPending != bound {
		t.Fatalf("slow member: %d pending, %d dropped; want %d and %d", st.WritesPending, st.WritesDropped, bound, writes-bound)
	}
	for _, raw := range txs {
		if !fast.has(raw) {
			t.Fatalf("the fast member lacks a write")
		}
	}
	slow.release()
	testenv.WaitFor(t, 10*time.Second, "the slow member's writes to end", func() bool { return slowStatus().WritesPending == 0 })
	// Room again: the next write reaches the slow member.
	more := signedTxs(t, 1)
	send(t, p, "eth_sendRawTransaction", `["`+more[0]+`"]`, false)
	testenv.WaitFor(t, 10*time.Second, "the next write to reach the slow member", func() bool { return slow.has(more[0]) })
}
