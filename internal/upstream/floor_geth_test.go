package upstream_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// gethChainBlocks is the length of the chain both go-ethereum members
// import: well past the 128 recent states a pruned (path-scheme) node
// keeps; gethLaterBlocks more are made to be inserted later.
const (
	gethChainBlocks = 200
	gethLaterBlocks = 60
)

// writeGethChain makes a chain of gethChainBlocks blocks, each with one
// transfer to a new account (so that every block has a state of its own),
// with go-ethereum's chain maker, and writes it as `nodegate node
// --chain` reads it (genesis.json, chain.rlp). It returns the dir and the
// accounts paid, one per block (block i+1 pays payees[i]), and the
// gethLaterBlocks blocks that follow the chain written.
func writeGethChain(t *testing.T) (string, []common.Address, []*types.Block) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	genesis := core.DeveloperGenesisBlock(30_000_000, nil) // go-ethereum's dev chain, with its system contracts
	genesis.Alloc[from] = types.Account{Balance: new(big.Int).Lsh(big.NewInt(1), 100)}
	signer := types.LatestSigner(genesis.Config)
	payees := make([]common.Address, gethChainBlocks+gethLaterBlocks)
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), gethChainBlocks+gethLaterBlocks, func(i int, g *core.BlockGen) {
		payees[i] = common.BigToAddress(big.NewInt(int64(0x1000 + i)))
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{
			ChainID: genesis.Config.ChainID, Nonce: uint64(i), GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(params.InitialBaseFee * 2),
			Gas: 21000, To: &payees[i], Value: big.NewInt(int64(i + 1)),
		})
		if err != nil {
			t.Fatal(err)
		}
		g.AddTx(tx)
	})
	dir := t.TempDir()
	gj, err := json.Marshal(genesis)
	if err != nil {
		t.Fatal(err)
	}
	var chain bytes.Buffer
	for _, b := range blocks[:gethChainBlocks] {
		if err := rlp.Encode(&chain, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "genesis.json"), gj, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chain.rlp"), chain.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, payees[:gethChainBlocks], blocks[gethChainBlocks:]
}

// countingProxy forwards single calls to a node on loopback and counts
// them by method; when historyFloor is set it answers eth_getLogs and
// eth_getBlockReceipts below it as a go-ethereum node with pruned
// history does (code 4444, "pruned history unavailable"), since
// go-ethereum prunes history only at a mainnet or testnet merge block.
type countingProxy struct {
	srv          *httptest.Server
	node         string
	historyFloor uint64

	mu    sync.Mutex
	calls map[string]int
	// pruned counts the answers that said a block is gone (the node's
	// own state errors and the proxy's history errors).
	pruned int
}

func newCountingProxy(t *testing.T, node string, historyFloor uint64) *countingProxy {
	t.Helper()
	c := &countingProxy{node: node, historyFloor: historyFloor, calls: map[string]int{}}
	c.srv = httptest.NewServer(c)
	t.Cleanup(c.srv.Close)
	return c
}

func (c *countingProxy) count(methods ...string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range methods {
		n += c.calls[m]
	}
	return n
}

func (c *countingProxy) prunedAnswers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pruned
}

func (c *countingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	c.mu.Lock()
	c.calls[req.Method]++
	c.mu.Unlock()
	if block, kind, ok := oldBlockOfCall(req.Method, req.Params); ok && kind == "logs" && block < c.historyFloor {
		c.mu.Lock()
		c.pruned++
		c.mu.Unlock()
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":4444,"message":"pruned history unavailable"}}`, req.ID)
		return
	}
	resp, err := http.Post(c.node, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if bytes.Contains(out, []byte("is not available")) || bytes.Contains(out, []byte("missing trie node")) {
		c.mu.Lock()
		c.pruned++
		c.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// gethOldCall is a client's call of old data: the balance of the account
// block b paid (state), or block b's logs or receipts (history).
func gethOldCall(i int, b uint64, payees []common.Address) (method, params string) {
	hb := hexutil.EncodeUint64(b)
	switch i % 3 {
	case 0:
		return "eth_getBalance", fmt.Sprintf(`["%s","%s"]`, payees[(b+gethChainBlocks-1)%gethChainBlocks].Hex(), hb)
	case 1:
		return "eth_getLogs", fmt.Sprintf(`[{"fromBlock":"%s","toBlock":"%s"}]`, hb, hb)
	}
	return "eth_getBlockReceipts", fmt.Sprintf(`["%s"]`, hb)
}

// TestFloorsWithGoEthereum: an archive go-ethereum member and a pruned one
// (go-ethereum's path scheme, recent states only, and its history pruned
// below block 100 as go-ethereum answers it) on the same imported chain.
// Old-state and old-log calls over every block are answered from the
// member that holds them: no pruned answer reaches a client; with the
// floors probed the pruned member gets no call below them, and with the
// floors learned from its answers alone, none once they are learned.
func TestFloorsWithGoEthereum(t *testing.T) {
	dir, payees, later := writeGethChain(t)
	archiveNode := evmnodetest.Start(t, evmnode.Config{ChainDir: dir, HTTPAddr: "127.0.0.1:0"})
	prunedNode := evmnodetest.Start(t, evmnode.Config{ChainDir: dir, HTTPAddr: "127.0.0.1:0", PrunedState: true})
	const historyFloor = 100
	clientMethods := []string{"eth_getBalance", "eth_getLogs", "eth_getBlockReceipts"}
	pool := func(t *testing.T, probe bool) (*upstream.Pool, *countingProxy, *countingProxy) {
		archive := newCountingProxy(t, archiveNode.HTTPEndpoint(), 0)
		pruned := newCountingProxy(t, prunedNode.HTTPEndpoint(), historyFloor)
		// No hedged reads: the test counts one upstream call per client
		// call, and on a loaded machine a late answer would be hedged.
		cfg := upstream.PoolConfig{HeadInterval: 50 * time.Millisecond, HeadBlockMethod: "eth_getBlockByNumber",
			Hedge: upstream.HedgeConfig{Off: true}}
		if probe {
			cfg.StateProbeMethod, cfg.LogsProbeMethod = "eth_getBalance", "eth_getBlockReceipts"
		}
		p := startPool(t, cfg, upstream.MemberConfig{Upstream: httpUpstream(t, archive.srv.URL), Name: "archive"},
			upstream.MemberConfig{Upstream: httpUpstream(t, pruned.srv.URL), Name: "pruned"})
		testenv.WaitFor(t, time.Minute, "both members at the head", func() bool { return p.Status()[1].Head == gethChainBlocks && p.Status()[0].Head == gethChainBlocks })
		return p, archive, pruned
	}
	// pass makes the old calls of 600 (each block's balance, logs and
	// receipts) that want takes; it returns how many, the errors
	// delivered, the upstream calls each member got and the pruned
	// answers the pool met.
	pass := func(t *testing.T, p *upstream.Pool, archive, pruned *countingProxy, want func(method string, b uint64) bool) (calls, delivered, onArchive, onPruned, met int) {
		a0, p0, met0 := archive.count(clientMethods...), pruned.count(clientMethods...), pruned.prunedAnswers()
		for i := range 600 {
			b := uint64(1 + i%gethChainBlocks)
			method, params := gethOldCall(i, b, payees)
			if !want(method, b) {
				continue
			}
			calls++
			if resp := send(t, p, method, params, true); resp.Err != nil {
				delivered++
				t.Errorf("%s %s answered %v", method, params, resp.Err)
			}
		}
		return calls, delivered, archive.count(clientMethods...) - a0, pruned.count(clientMethods...) - p0, pruned.prunedAnswers() - met0
	}
	every := func(string, uint64) bool { return true }
	t.Run("probed", func(t *testing.T) {
		p, archive, pruned := pool(t, true)
		testenv.WaitFor(t, time.Minute, "the pruned member's floors probed", func() bool {
			st := p.Status()[1]
			return st.StateFrom > 1 && st.LogsFrom == historyFloor
		})
		// The archive member is probed too (one call of each kind finds
		// block 1 served); on a loaded machine its probe can come late,
		// and a probe call during the pass would count as a client's.
		testenv.WaitFor(t, time.Minute, "the archive member's floors probed", func() bool {
			return archive.count("eth_getBalance") >= 1 && archive.count("eth_getBlockReceipts") >= 1
		})
		st := p.Status()
		if st[0].StateFrom != 0 || st[0].LogsFrom != 0 {
			t.Fatalf("archive member's floors: state %d logs %d", st[0].StateFrom, st[0].LogsFrom)
		}
		t.Logf("pruned member: state from block %d, logs from block %d (head %d); probe calls: %d eth_getBalance, %d eth_getBlockReceipts",
			st[1].StateFrom, st[1].LogsFrom, p.Head(), pruned.count("eth_getBalance"), pruned.count("eth_getBlockReceipts"))
		_, delivered, onArchive, onPruned, met := pass(t, p, archive, pruned, every)
		t.Logf("600 old calls: %d errors delivered; upstream calls: archive %d, pruned %d; pruned answers met %d", delivered, onArchive, onPruned, met)
		if met != 0 || onArchive+onPruned != 600 {
			t.Fatalf("%d calls of 600 were sent to a member below its probed floor (%d upstream calls), want 0", met, onArchive+onPruned)
		}
		if onPruned == 0 {
			t.Fatal("the pruned member got no call at all: the calls above its floors should be spread")
		}
	})
	t.Run("learned", func(t *testing.T) {
		p, archive, pruned := pool(t, false)
		_, delivered, onArchive, onPruned, met := pass(t, p, archive, pruned, every)
		st := p.Status()[1]
		t.Logf("first 600 old calls: %d errors delivered; upstream calls: archive %d, pruned %d; pruned answers met %d (floors learned: state %d, logs %d)",
			delivered, onArchive, onPruned, met, st.StateFrom, st.LogsFrom)
		if st.StateFrom < 2 || st.LogsFrom < 2 {
			t.Fatalf("no floor learned from %d pruned answers: state %d, logs %d", met, st.StateFrom, st.LogsFrom)
		}
		// Every call of the same 600 below the floors learned: none reaches the pruned member.
		below := func(method string, b uint64) bool {
			if method == "eth_getBalance" {
				return b < st.StateFrom
			}
			return b < st.LogsFrom
		}
		calls, delivered, onArchive, onPruned, met := pass(t, p, archive, pruned, below)
		t.Logf("then %d calls below them: %d errors delivered; upstream calls: archive %d, pruned %d; pruned answers met %d", calls, delivered, onArchive, onPruned, met)
		if met != 0 || onPruned != 0 || onArchive != calls {
			t.Fatalf("once learned, %d calls of %d were still sent to a member below its floor (%d upstream calls), want 0", onPruned, calls, onArchive+onPruned)
		}
	})
	t.Run("moving", func(t *testing.T) { // last: it adds blocks to both nodes
		p, archive, pruned := pool(t, true)
		testenv.WaitFor(t, time.Minute, "the pruned member's floors probed", func() bool { return p.Status()[1].StateFrom == 72 })
		insert := func(blocks []*types.Block) {
			for _, n := range []*evmnode.Node{archiveNode, prunedNode} {
				if _, err := n.Ethereum().BlockChain().InsertChain(blocks); err != nil {
					t.Fatal(err)
				}
			}
			head := blocks[len(blocks)-1].NumberU64()
			testenv.WaitFor(t, time.Minute, "both members at the new head", func() bool { return p.Status()[0].Head == head && p.Status()[1].Head == head })
		}
		insert(later[:30]) // head 230: the pruned node now keeps state from 102
		balanceAt := func(b uint64) {
			if resp := send(t, p, "eth_getBalance", fmt.Sprintf(`["%s","%s"]`, payees[b-1].Hex(), hexutil.EncodeUint64(b)), true); resp.Err != nil {
				t.Fatalf("balance at %d: %v", b, resp.Err)
			}
		}
		for i, met := 0, pruned.prunedAnswers(); i < 256 && pruned.prunedAnswers() == met; i++ {
			balanceAt(90) // until one reaches the pruned member: its answer moves its floor and brings its probe forward
		}
		testenv.WaitFor(t, time.Minute, "the pruned member's floor probed again", func() bool { return p.Status()[1].StateFrom == 102 })
		insert(later[30:]) // head 260: state from 132, and no probe since
		if got := p.Status()[1].StateFrom; got != 132 {
			t.Fatalf("the pruned member's state floor at head 260 is %d, want 132 (it moves with the head)", got)
		}
		met, onPruned, onArchive := pruned.prunedAnswers(), pruned.count("eth_getBalance"), archive.count("eth_getBalance")
		for b := uint64(102); b < 132; b++ {
			balanceAt(b)
		}
		t.Logf("30 calls at blocks 102-131 (pruned since head 260, no probe since head 230): pruned member got %d, pruned answers met %d; archive %d",
			pruned.count("eth_getBalance")-onPruned, pruned.prunedAnswers()-met, archive.count("eth_getBalance")-onArchive)
		if got := pruned.prunedAnswers() - met; got != 0 {
			t.Fatalf("%d calls reached the pruned member below its moving floor, want 0", got)
		}
	})
}
