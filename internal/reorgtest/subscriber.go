package reorgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/gorilla/websocket"
)

// Subscriber is a client over WebSocket with a newHeads and a logs
// subscription (the builder's logging contract), judging each
// notification against the tree and keeping the logs that are live
// (delivered, not removed since).
type Subscriber struct {
	Tree *Tree
	mu   sync.Mutex
	c    Counts
	view view
	conn *websocket.Conn
	subs map[string]string // subscription id → "newHeads" or "logs"
	last head
	seen map[common.Hash]bool // heads delivered
	live map[LogID]bool
	done chan struct{}
}

type head struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
	Parent common.Hash    `json:"parentHash"`
}

type logNote struct {
	BlockHash common.Hash    `json:"blockHash"`
	LogIndex  hexutil.Uint64 `json:"logIndex"`
	Removed   bool           `json:"removed"`
}

// Subscribe dials url and subscribes to newHeads and to contract's logs;
// a subscription the server refuses is counted (SubRefused) and the
// subscriber then reads nothing. It reads until ctx ends.
func Subscribe(ctx context.Context, url string, tree *Tree, contract common.Address) (*Subscriber, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	conn, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	s := &Subscriber{Tree: tree, view: view{tree: tree}, conn: conn, subs: map[string]string{},
		seen: map[common.Hash]bool{}, live: map[LogID]bool{}, done: make(chan struct{})}
	kinds := []string{"newHeads", "logs"}
	params := []string{`["newHeads"]`, fmt.Sprintf(`["logs",{"address":"%s"}]`, contract)}
	for i, p := range params {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_subscribe","params":%s}`, i, p)
		if err := conn.WriteMessage(websocket.TextMessage, []byte(req)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("subscribe: %w", err)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for range params {
		var a struct {
			ID     int             `json:"id"`
			Result string          `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := conn.ReadJSON(&a); err != nil {
			conn.Close()
			return nil, fmt.Errorf("subscribe answer: %w", err)
		}
		if a.Error != nil || a.Result == "" || a.ID < 0 || a.ID >= len(kinds) {
			s.c.SubRefused++
			if s.c.FirstError == "" {
				s.c.FirstError = fmt.Sprintf("eth_subscribe %s: %s", params[a.ID%len(params)], a.Error)
			}
			continue
		}
		s.subs[a.Result] = kinds[a.ID]
	}
	_ = conn.SetReadDeadline(time.Time{})
	go func() {
		<-ctx.Done()
		conn.Close()
	}()
	go s.read()
	return s, nil
}

func (s *Subscriber) read() {
	defer close(s.done)
	for {
		var n struct {
			Params struct {
				Subscription string          `json:"subscription"`
				Result       json.RawMessage `json:"result"`
			} `json:"params"`
		}
		if err := s.conn.ReadJSON(&n); err != nil {
			return
		}
		s.mu.Lock()
		switch s.subs[n.Params.Subscription] {
		case "newHeads":
			var h head
			if json.Unmarshal(n.Params.Result, &h) == nil {
				s.onHead(h)
			}
		case "logs":
			var l logNote
			if json.Unmarshal(n.Params.Result, &l) == nil {
				s.onLog(l)
			}
		}
		s.mu.Unlock()
	}
}

func (s *Subscriber) onHead(h head) {
	s.c.Answers++
	s.c.Heads++
	ok, unknown := s.view.saw(h.Hash)
	switch {
	case unknown:
		s.c.Unknown++
	case !ok:
		s.c.HeadFlipBacks++
	}
	switch {
	case s.seen[h.Hash]:
		s.c.HeadRepeats++
	case s.last.Hash == (common.Hash{}):
	case h.Number > s.last.Number+1:
		s.c.HeadGaps++
	case h.Parent != s.last.Hash:
		s.c.ForkHeads++
	}
	s.seen[h.Hash] = true
	s.last = h
}

func (s *Subscriber) onLog(l logNote) {
	s.c.Answers++
	id := LogID{Block: l.BlockHash, Index: uint64(l.LogIndex)}
	if l.Removed {
		s.c.LogsRemoved++
		if !s.live[id] {
			s.c.LogsRemovedNew++
		}
		delete(s.live, id)
		return
	}
	s.c.Logs++
	if ok, _ := s.view.saw(l.BlockHash); !ok {
		s.c.LogFlipBacks++
	}
	if s.live[id] {
		s.c.LogRepeats++
	}
	s.live[id] = true
}

// Refused reports whether a subscription was refused.
func (s *Subscriber) Refused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.SubRefused > 0
}

// Reached reports whether the last head delivered is tip and every log
// of wantLogs is live: the subscriber has caught up with the final chain.
func (s *Subscriber) Reached(tip common.Hash, wantLogs map[LogID]bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last.Hash != tip {
		return false
	}
	for l := range wantLogs {
		if l.Block == tip && !s.live[l] {
			return false
		}
	}
	return true
}

// Counts are the subscriber's counts with the final logs judged against
// canonical, the logs of the final chain since the subscriber started.
func (s *Subscriber) Counts(canonical map[LogID]bool) Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.c
	if c.SubRefused > 0 {
		return c
	}
	for l := range s.live {
		if !canonical[l] {
			c.LogsLeftLive++
		}
	}
	for l := range canonical {
		if !s.live[l] {
			c.LogsMissing++
		}
	}
	return c
}
