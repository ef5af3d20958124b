package service

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/testenv"
)

// The chain-view harness: `nodegate node` dev chains fed the same
// transactions by a gossip relay that gives them to the first member at
// once and to the others D later, a writer whose every transaction emits
// one log, and clients that check what nodegate, in front of the members,
// tells them (docs/pools.md, "One view of the chain").

// logEmitter is the init code of a contract whose every call emits one log
// with no topics and no data (runtime: PUSH1 0 PUSH1 0 LOG0 STOP).
var logEmitter = hexutil.MustDecode("0x6560006000a0006000526006601af3")

// relay gives each signed transaction to the first member at once and to
// the others delay later: members that do not gossip, one of them behind.
type relay struct {
	t       *testing.T
	delay   time.Duration
	members []*nodeProc
	wg      sync.WaitGroup
}

// send gives raw to the members: a member that is dead (killed by the
// test) just does not get it.
func (r *relay) send(raw []byte) {
	params := fmt.Sprintf(`["%s"]`, hexutil.Encode(raw))
	for i, n := range r.members {
		r.wg.Go(func() {
			if i > 0 {
				time.Sleep(r.delay)
			}
			_, _ = nodeResult(n.url(), "eth_sendRawTransaction", params)
		})
	}
}

// writer seals one block per transaction on every member through the
// relay: a contract first, then calls of it, each emitting one log. It
// sends the next transaction when the last member has sealed the previous
// one, and at most one a second.
type writer struct {
	t      *testing.T
	relay  *relay
	key    string
	nonce  uint64
	last   *nodeProc // the member that gets transactions last
	to     common.Address
	sentMu sync.Mutex
	sent   []common.Hash // every transaction sent, in order
}

func (w *writer) tx(to *common.Address, data []byte, gas uint64) []byte {
	pk := mustKey(w.t, w.key)
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: w.nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: gas, To: to, Data: data})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(tx.ChainId()), pk)
	if err != nil {
		w.t.Fatal(err)
	}
	raw, _ := signed.MarshalBinary()
	w.nonce++
	w.sentMu.Lock()
	w.sent = append(w.sent, signed.Hash())
	w.sentMu.Unlock()
	return raw
}

// recent is the last n transactions sent.
func (w *writer) recent(n int) []common.Hash {
	w.sentMu.Lock()
	defer w.sentMu.Unlock()
	return append([]common.Hash(nil), w.sent[max(0, len(w.sent)-n):]...)
}

func (w *writer) count() int {
	w.sentMu.Lock()
	defer w.sentMu.Unlock()
	return len(w.sent)
}

// run deploys the contract, then calls it until stop.
func (w *writer) run(stop <-chan struct{}) {
	from := crypto.PubkeyToAddress(mustKey(w.t, w.key).PublicKey)
	w.to = crypto.CreateAddress(from, w.nonce)
	w.step(w.tx(nil, logEmitter, 200_000))
	for {
		select {
		case <-stop:
			return
		default:
		}
		w.step(w.tx(&w.to, nil, 60_000))
	}
}

// step sends one transaction and waits until the last member sealed it,
// and at least a second.
func (w *writer) step(raw []byte) {
	start := time.Now()
	w.relay.send(raw)
	hash := w.recent(1)[0].Hex()
	testenv.WaitFor(w.t, 30*time.Second, "the last member to seal "+hash, func() bool {
		r, err := nodeResult(w.last.url(), "eth_getTransactionReceipt", `["`+hash+`"]`)
		return err == nil && string(r) != "null"
	})
	time.Sleep(time.Second - time.Since(start))
}

func mustKey(t *testing.T, hexKey string) *ecdsa.PrivateKey {
	t.Helper()
	pk, err := crypto.HexToECDSA(strings.TrimPrefix(hexKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	return pk
}

// viewCounts are what the checkers saw: each pair is (bad, total).
type viewCounts struct {
	backwards, blockNumbers   atomic.Int64 // eth_blockNumber lower than the client's previous answer
	logsErrors, logsQueries   atomic.Int64 // eth_getLogs(N..N) for the N just seen: an error
	logsMissing               atomic.Int64 // … answered without the block's one log
	byIndexNull, byIndexCalls atomic.Int64 // eth_getTransactionByBlockNumberAndIndex(N, 0): null
	failed, calls             atomic.Int64 // any call that failed (transport, HTTP, JSON-RPC error)

	mu        sync.Mutex
	vanished  map[common.Hash]bool // receipts or transactions null after a client saw them
	failures  []string
	lookedFor map[common.Hash]bool
}

func (v *viewCounts) note(format string, a ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.failures) < 10 {
		v.failures = append(v.failures, fmt.Sprintf(format, a...))
	}
}

// viewClient is one client of nodegate in a loop: the head, its logs and
// first transaction, and the receipts of the last transactions sent.
type viewClient struct {
	url    string
	http   *http.Client
	counts *viewCounts
	w      *writer
	id     atomic.Int64
}

// call makes one call; ok is false (and the failure counted) on a
// transport error, an HTTP error or a JSON-RPC error.
func (c *viewClient) call(method, params string) (json.RawMessage, *struct{ Code int }, bool) {
	c.counts.calls.Add(1)
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id.Add(1), method, params)
	status, out, err := testenv.Post(context.Background(), c.http, c.url, body)
	var a struct {
		Result json.RawMessage
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err == nil {
		err = json.Unmarshal(out, &a)
	}
	if err != nil || status != http.StatusOK || a.Error != nil {
		c.counts.failed.Add(1)
		c.counts.note("%s %s: HTTP %d %v %.200s", method, params, status, err, out)
		if a.Error != nil {
			return nil, &struct{ Code int }{a.Error.Code}, false
		}
		return nil, nil, false
	}
	return a.Result, nil, true
}

// run checks until stop.
func (c *viewClient) run(stop <-chan struct{}) {
	var prev uint64
	seen := map[common.Hash]bool{}
	for {
		select {
		case <-stop:
			return
		default:
		}
		raw, _, ok := c.call("eth_blockNumber", `[]`)
		var head hexutil.Uint64
		if !ok || json.Unmarshal(raw, &head) != nil {
			continue
		}
		n := uint64(head)
		c.counts.blockNumbers.Add(1)
		if n < prev {
			c.counts.backwards.Add(1)
		}
		prev = max(prev, n)
		if n >= 3 { // block 1 is the dev chain's empty first block, 2 the contract
			c.counts.logsQueries.Add(1)
			raw, _, ok := c.call("eth_getLogs", fmt.Sprintf(`[{"fromBlock":"%s","toBlock":"%s"}]`, hexutil.Uint64(n), hexutil.Uint64(n)))
			var logs []json.RawMessage
			switch {
			case !ok:
				c.counts.logsErrors.Add(1)
			case json.Unmarshal(raw, &logs) != nil || len(logs) != 1:
				c.counts.logsMissing.Add(1)
				c.counts.note("eth_getLogs(%d..%d): %.200s, want its one log", n, n, raw)
			}
		}
		if n >= 2 {
			c.counts.byIndexCalls.Add(1)
			if raw, _, ok := c.call("eth_getTransactionByBlockNumberAndIndex", fmt.Sprintf(`["%s","0x0"]`, hexutil.Uint64(n))); ok && string(raw) == "null" {
				c.counts.byIndexNull.Add(1)
			}
		}
		for _, h := range c.w.recent(3) {
			for _, method := range []string{"eth_getTransactionReceipt", "eth_getTransactionByHash"} {
				raw, _, ok := c.call(method, `["`+h.Hex()+`"]`)
				if !ok {
					continue
				}
				c.counts.mu.Lock()
				c.counts.lookedFor[h] = true
				switch {
				case string(raw) != "null" && method == "eth_getTransactionReceipt":
					seen[h] = true
				case string(raw) == "null" && seen[h]:
					c.counts.vanished[h] = true
				}
				c.counts.mu.Unlock()
			}
		}
		time.Sleep(20 * time.Millisecond) // a client's pace, not a flood
	}
}

// headsGaps counts, in what one newHeads client received up to head, the
// heads missed (gaps, and short of head) and the same block (number and
// hash) delivered more than once. A number again with another hash is a
// reorganisation's new head, as a node sends it (these members' chains
// agree by number, not by hash): not a duplicate.
func headsGaps(c *headsClient, head uint64) (missed, dup int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	type block struct {
		n    uint64
		hash common.Hash
	}
	got, seen := map[uint64]bool{}, map[block]int{}
	for i, n := range c.heads {
		got[n] = true
		seen[block{n, c.hashes[i]}]++
	}
	if len(c.heads) == 0 {
		return int(head), 0
	}
	for n := c.heads[0]; n <= head; n++ {
		if !got[n] {
			missed++
		}
	}
	for _, k := range seen {
		dup += k - 1
	}
	return missed, dup
}
