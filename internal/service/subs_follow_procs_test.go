package service

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// devChain drives blocks on several `nodegate node` dev chains at once:
// each transaction, sent to every live node, seals one block on each
// (block-time 0), so that block numbers agree across the members (their
// hashes do not: each node seals at its own time).
type devChain struct {
	t     *testing.T
	key   string
	nonce uint64
	head  uint64 // the number every fed node is at
}

// feed sends the next transaction to nodes and waits until each sealed it.
func (d *devChain) feed(nodes ...*nodeProc) {
	d.t.Helper()
	pk, err := crypto.HexToECDSA(strings.TrimPrefix(d.key, "0x"))
	if err != nil {
		d.t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: d.nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(tx.ChainId()), pk)
	if err != nil {
		d.t.Fatal(err)
	}
	raw, _ := signed.MarshalBinary()
	d.nonce++
	d.head++
	for _, n := range nodes {
		if _, err := nodeResult(n.url(), "eth_sendRawTransaction", fmt.Sprintf(`["%s"]`, hexutil.Encode(raw))); err != nil {
			d.t.Fatalf("send to %s: %v", n.addr, err)
		}
	}
	for _, n := range nodes {
		testenv.WaitFor(d.t, 30*time.Second, fmt.Sprintf("node %s to seal block %d", n.addr, d.head), func() bool {
			res, err := nodeResult(n.url(), "eth_blockNumber", `[]`)
			var num hexutil.Uint64
			return err == nil && json.Unmarshal(res, &num) == nil && uint64(num) >= d.head
		})
	}
}

// nodeResult makes one call on a node and returns its result.
func nodeResult(url, method, params string) (json.RawMessage, error) {
	resp, err := http.Post(url, "application/json", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var a struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || a.Error != nil {
		return nil, fmt.Errorf("%s: %v %s", method, err, a.Error)
	}
	return a.Result, nil
}

// headsClient is one WebSocket client of nodegate subscribed to newHeads:
// what it received, under which subscription id.
type headsClient struct {
	id string

	mu     sync.Mutex
	heads  []uint64
	hashes []common.Hash  // each head's hash
	ids    map[string]int // subscription id → notifications
	err    error
}

func subscribeHeads(t *testing.T, url string) *headsClient {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Result string
		Error  json.RawMessage
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if err := conn.ReadJSON(&answer); err != nil || answer.Result == "" {
		t.Fatalf("eth_subscribe: %v %s", err, answer.Error)
	}
	_ = conn.SetReadDeadline(time.Time{})
	c := &headsClient{id: answer.Result, ids: map[string]int{}}
	go func() {
		for {
			var n struct {
				Params struct {
					Subscription string
					Result       struct {
						Number hexutil.Uint64
						Hash   common.Hash
					}
				}
			}
			if err := conn.ReadJSON(&n); err != nil {
				c.mu.Lock()
				c.err = err
				c.mu.Unlock()
				return
			}
			c.mu.Lock()
			c.heads = append(c.heads, uint64(n.Params.Result.Number))
			c.hashes = append(c.hashes, n.Params.Result.Hash)
			c.ids[n.Params.Subscription]++
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *headsClient) last() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.heads) == 0 {
		return 0
	}
	return c.heads[len(c.heads)-1]
}

// check says what is wrong with what c received up to head: no number
// skipped (each head is the one after the last, or a reorganisation's
// first block at or below it: these members' chains agree by number, not
// by hash, and newHeads follows the pool's canonical chain as a node
// follows its own), reaching head, all under c's id.
func (c *headsClient) check(head uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.heads) == 0 {
		return fmt.Errorf("no heads")
	}
	for i := 1; i < len(c.heads); i++ {
		if c.heads[i] > c.heads[i-1]+1 {
			return fmt.Errorf("heads %v: %d skipped", c.heads, c.heads[i-1]+1)
		}
	}
	if c.heads[len(c.heads)-1] != head {
		return fmt.Errorf("heads %v: want them to reach %d", c.heads, head)
	}
	if len(c.ids) != 1 || c.ids[c.id] != len(c.heads) {
		return fmt.Errorf("notifications by subscription id %v, want all %d under %s", c.ids, len(c.heads), c.id)
	}
	return nil
}

// TestSubscriptionsFollowThePool runs three `nodegate node` dev chains fed
// the same transactions (so their block numbers agree) behind one nodegate
// network, with several WebSocket clients subscribed to newHeads. It
// SIGKILLs a member, then starves another of blocks (it falls behind the
// head): every client keeps getting every block number, in order (a
// number again only as a reorganisation, since the members' hashes
// differ), under the same subscription id.
func TestSubscriptionsFollowThePool(t *testing.T) {
	nodes := map[string]*nodeProc{}
	var ups []config.Upstream
	for _, name := range []string{"a", "b", "c"} {
		nodes[name] = startNode(t, "", "127.0.0.1:0")
		ups = append(ups, config.Upstream{Name: name, URL: nodes[name].wsURL()})
	}
	chain := &devChain{t: t, key: nodes["a"].devKey(), head: 1} // each dev chain starts with one empty block
	live := func(except ...string) []*nodeProc {
		var out []*nodeProc
	next:
		for name, n := range nodes {
			for _, e := range except {
				if name == e {
					continue next
				}
			}
			out = append(out, n)
		}
		return out
	}

	cfg := config.Defaults()
	cfg.Listen = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	key := strings.Repeat("cd", 16)
	cfg.APIKeys = []string{key}
	cfg.Plans[config.PlanTeam] = config.Plan{Failover: true}
	cfg.Networks = []config.Network{{
		Name: "mainnet", Family: "evm", Upstreams: ups,
		Pool: config.Pool{AttemptTimeout: 3 * time.Second, HeadInterval: 100 * time.Millisecond, ProbeInterval: 50 * time.Millisecond, RetryBudget: 5 * time.Second},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())
	hub := svc.Networks()[0].Subs
	if hub == nil {
		t.Fatal("no subscription hub over ws members")
	}

	var clients []*headsClient
	for range 4 {
		clients = append(clients, subscribeHeads(t, svc.WSURL()+"/ws/v3/"+key))
	}
	delivered := func(what string) {
		t.Helper()
		testenv.WaitFor(t, 30*time.Second, what, func() bool {
			for _, c := range clients {
				if c.last() < chain.head {
					return false
				}
			}
			return true
		})
		for i, c := range clients {
			if err := c.check(chain.head); err != nil {
				t.Fatalf("client %d after %s: %v", i, what, err)
			}
		}
	}
	for range 3 {
		chain.feed(live()...)
	}
	delivered("the first heads")

	// SIGKILL a member while blocks go on.
	nodes["a"].kill()
	delete(nodes, "a")
	for range 5 {
		chain.feed(live()...)
	}
	delivered("a member was killed")

	// Starve a member: it falls behind the head.
	for range 5 {
		chain.feed(live("b")...)
	}
	delivered("a member fell behind")
	for i, c := range clients {
		t.Logf("client %d: %d heads, %d..%d, one subscription id", i, len(c.heads), c.heads[0], c.last())
	}
}
