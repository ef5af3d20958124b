package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// movesSharer keeps the last head move a pool handed its sharer.
type movesSharer struct {
	mu       sync.Mutex
	lastMove string
}

func (s *movesSharer) HeadMoved(n uint64, rewound bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastMove = fmt.Sprintf("%d rewound=%v", n, rewound)
}

func (s *movesSharer) Published(context.Context) {}

func (s *movesSharer) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastMove
}

// poolAtTen is a started pool of one member (its calls answered by fn)
// sharing its heads with the sharer it returns, its chain fork 0 from 1
// to 10.
func poolAtTen(fn func(ctx context.Context, body []byte) ([]byte, error)) (*Pool, *movesSharer) {
	p := NewPool("stale", PoolConfig{HeadBlockMethod: "eth_getBlockByNumber", LagMemory: time.Minute}, MemberConfig{Upstream: Func{ID: "m", Fn: fn}})
	p.started.Store(true)
	s := new(movesSharer)
	p.ShareHeads(s)
	for _, b := range chainTo(10) {
		p.reportBlock(p.members[0], b)
	}
	return p, s
}

// blockAnswer is an eth_getBlockByNumber answer naming b.
func blockAnswer(b headBlock) *jsonrpc.Response {
	return &jsonrpc.Response{Result: json.RawMessage(fmt.Sprintf(`{"number":"0x%x","hash":"%s","parentHash":"%s","transactions":[]}`, b.Number, b.Hash.Hex(), b.Parent.Hex()))}
}

// TestStaleWordAfterARewindRaisesNoHead: after the chain rewound from
// block 10 to a block 9 of another fork, word of block 10 read before the
// rewind and taken after it (an answer to a call sent before it, a poll a
// newer report overtook, a subscription hub's head read late) raises
// neither the member's head, the pool's head nor the fleet's
// (canonstale.go); word of a block of the new branch still does.
func TestStaleWordAfterARewindRaisesNoHead(t *testing.T) {
	byNumber := kindOf(ruleOf("eth_getBlockByNumber"))
	for _, tc := range []struct {
		name string
		// word is what m says after the rewind; reorgs is the chain's
		// count of reorganisations before it.
		word func(p *Pool, m *Member, reorgs uint64)
		want uint64
	}{
		{"a block answered to a call sent before the rewind", func(p *Pool, m *Member, reorgs uint64) {
			p.learn(m, byNumber, json.RawMessage(`["0xa",false]`), blockAnswer(blk(10, 0, 0)), reorgs)
		}, 9},
		{"a head number answered to a call sent before the rewind", func(p *Pool, m *Member, reorgs uint64) {
			p.learn(m, kindOf(ruleOf("eth_blockNumber")), json.RawMessage(`[]`), &jsonrpc.Response{Result: json.RawMessage(`"0xa"`)}, reorgs)
		}, 9},
		{"a poll a newer report overtook", func(p *Pool, m *Member, _ uint64) {
			b := blk(10, 0, 0)
			b.asked = m.reports.Load() // a push came while the poll was out
			p.reportBlock(m, b)
		}, 9},
		{"a head a subscription hub delivered late", func(p *Pool, m *Member, _ uint64) {
			p.SawHead(m, 10, blk(10, 0, 0).Hash)
		}, 9},
		{"the new branch's next head a subscription hub delivered", func(p *Pool, m *Member, _ uint64) {
			p.SawHead(m, 10, blk(10, 1, 1).Hash)
		}, 10},
		{"an answer naming the new branch's next block", func(p *Pool, m *Member, _ uint64) {
			p.learn(m, byNumber, json.RawMessage(`["0xa",false]`), blockAnswer(blk(10, 1, 1)), p.reorgsSeen())
		}, 10},
		{"a poll of the new branch's next block a newer report overtook", func(p *Pool, m *Member, _ uint64) {
			b := blk(10, 1, 1)
			b.asked = m.reports.Load()
			p.reportBlock(m, b)
		}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, s := poolAtTen(nil)
			m := p.members[0]
			reorgs := p.reorgsSeen()
			p.reportBlock(m, blk(9, 1, 0)) // a rewind to a shorter fork
			if got := p.Head(); got != 9 || m.Head() != 9 || s.last() != "9 rewound=true" {
				t.Fatalf("after the rewind: pool head %d, member head %d, last move %q; want 9, 9, 9 rewound", got, m.Head(), s.last())
			}
			tc.word(p, m, reorgs)
			if got := m.Head(); got != tc.want {
				t.Errorf("member head %d, want %d", got, tc.want)
			}
			if got := p.Head(); got != tc.want {
				t.Errorf("pool head %d, want %d", got, tc.want)
			}
			if want := fmt.Sprintf("%d rewound=false", tc.want); tc.want == 10 && s.last() != want {
				t.Errorf("last move shared %q, want %q", s.last(), want)
			} else if tc.want == 9 && s.last() != "9 rewound=true" {
				t.Errorf("last move shared %q, want the rewind's", s.last())
			}
		})
	}
}

// TestHeadNumberReadBeforeARewindRaisesNoHead: through Send, a member
// answers eth_blockNumber 10 as read before its rewind to a block 9 of
// another fork, and the pool takes the rewind's push before the answer is
// judged: the answer is given as it came, but neither the member's head,
// the pool's head nor the fleet's goes back to 10 (canonstale.go).
func TestHeadNumberReadBeforeARewindRaisesNoHead(t *testing.T) {
	var p *Pool
	var s *movesSharer
	var once sync.Once
	fn := func(ctx context.Context, body []byte) ([]byte, error) {
		once.Do(func() { p.reportBlock(p.members[0], blk(9, 1, 0)) }) // the rewind's push, while the answer is on its way
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0xa"}`), nil
	}
	p, s = poolAtTen(fn)
	m := p.members[0]
	resp, _, err := p.Send(context.Background(), Call{
		Body: jsonrpc.AppendRequest(nil, 1, "eth_blockNumber", json.RawMessage(`[]`)),
		Rule: ruleOf("eth_blockNumber"), Params: json.RawMessage(`[]`), Idempotent: true,
	})
	if err != nil || resp.Err != nil || string(resp.Result) != `"0xa"` {
		t.Fatalf("answer %v %v, want 0xa as the member gave it", resp, err)
	}
	if m.Head() != 9 || p.Head() != 9 || s.last() != "9 rewound=true" {
		t.Errorf("member head %d, pool head %d, last move shared %q; want 9, 9 and the rewind's", m.Head(), p.Head(), s.last())
	}
}
