package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/testenv"
)

// sendTransfer sends 1 wei from the first dev account and returns its hash
// (sealed at once: a block per transaction).
func sendTransfer(t *testing.T, ec *ethclient.Client, node *evmnode.Node) common.Hash {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	acc := node.Accounts()[0]
	nonce, err := ec.PendingNonceAt(ctx, acc.Address)
	if err != nil {
		t.Fatalf("nonce: %v", err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: new(big.Int).SetUint64(node.ChainID()), Nonce: nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(tx.ChainId()), acc.Key)
	if err != nil {
		t.Fatal(err)
	}
	if err := ec.SendTransaction(ctx, signed); err != nil {
		t.Fatalf("send: %v", err)
	}
	return signed.Hash()
}

// rpcResult posts one call and returns its raw result.
func rpcResult(t *testing.T, url, method, params string) json.RawMessage {
	t.Helper()
	r, err := tryResult(url, method, params)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tryResult is rpcResult for waits: an error answer is not fatal.
func tryResult(url, method, params string) (json.RawMessage, error) {
	_, raw, err := testenv.Post(context.Background(), nil, url, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params))
	if err != nil {
		return nil, err
	}
	var a struct {
		ID     json.RawMessage
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Error != nil || string(a.ID) != "7" {
		return nil, fmt.Errorf("%s %s: %s", method, params, raw)
	}
	return a.Result, nil
}

var hitsLine = regexp.MustCompile(`nodegate_cache_hits_total\{network="default"\} (\d+)`)

func cacheHits(t *testing.T, s *service.Service) int {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	m := hitsLine.FindStringSubmatch(rec.Body.String())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func blockHashOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var r struct {
		BlockHash string `json:"blockHash"`
		Hash      string `json:"hash"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if r.BlockHash != "" {
		return r.BlockHash
	}
	return r.Hash
}

// TestCacheKeepsOnlyFinalAnswers: answers about finalized blocks are served
// from the cache; after a fork drops a block that was not final, no answer
// from that block is served — the transaction's receipt and the block at
// its number come from the new branch.
func TestCacheKeepsOnlyFinalAnswers(t *testing.T) {
	s := start(t, nil)
	url := s.URL() + "/v3/" + s.GeneratedKey
	ec, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	node := s.Node
	chain := node.Ethereum().BlockChain()

	// A transfer in an early block, then blocks until the dev chain's
	// finality (every 32 blocks) covers it.
	final := sendTransfer(t, ec, node)
	testenv.WaitFor(t, 30*time.Second, "the transfer is mined", func() bool { return len(rpcResult(t, url, "eth_getTransactionReceipt", `["`+final.Hex()+`"]`)) > 4 })
	for chain.CurrentBlock().Number.Uint64() < 32 {
		if err := node.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	pool := s.Networks()[0].Pool
	testenv.WaitFor(t, 30*time.Second, "the pool knows block 32 is final", func() bool { return pool.Finalized() >= 32 })

	before := cacheHits(t, s)
	for range 3 {
		rpcResult(t, url, "eth_getTransactionReceipt", `["`+final.Hex()+`"]`)
		rpcResult(t, url, "eth_getBlockByNumber", `["0x1",false]`)
	}
	if got := cacheHits(t, s) - before; got != 4 {
		t.Fatalf("cache hits for final answers = %d, want 4 (two calls, asked three times each)", got)
	}

	// A transfer in block 33: not final.
	pending := sendTransfer(t, ec, node)
	var dropped string
	testenv.WaitFor(t, 30*time.Second, "the second transfer is mined", func() bool {
		r := rpcResult(t, url, "eth_getTransactionReceipt", `["`+pending.Hex()+`"]`)
		if len(r) > 4 {
			dropped = blockHashOf(t, r)
		}
		return dropped != ""
	})
	num := chain.GetBlockByHash(common.HexToHash(dropped)).NumberU64()
	byNumber := fmt.Sprintf(`["0x%x",false]`, num)
	before = cacheHits(t, s)
	for range 3 {
		rpcResult(t, url, "eth_getTransactionReceipt", `["`+pending.Hex()+`"]`)
		rpcResult(t, url, "eth_getTransactionByHash", `["`+pending.Hex()+`"]`)
		if h := blockHashOf(t, rpcResult(t, url, "eth_getBlockByNumber", byNumber)); h != dropped {
			t.Fatalf("block %d is %s, want %s", num, h, dropped)
		}
	}
	if got := cacheHits(t, s) - before; got != 0 {
		t.Fatalf("%d cache hits for answers about a block that is not final", got)
	}

	// The fork: the block leaves the chain, its transfer is sealed anew.
	parent := chain.GetBlockByHash(common.HexToHash(dropped)).ParentHash()
	if err := node.Fork(parent); err != nil {
		t.Fatal(err)
	}
	if err := node.Commit(); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 30*time.Second, "the transfer is in the new branch", func() bool {
		// Right after the fork the head is lower than the highest seen:
		// the pool may answer "upstream unavailable" until the new branch
		// is as high (docs/pools.md, lag_memory).
		r, err := tryResult(url, "eth_getTransactionReceipt", `["`+pending.Hex()+`"]`)
		return err == nil && len(r) > 4 && blockHashOf(t, r) != dropped
	})
	for _, c := range []struct{ method, params string }{
		{"eth_getTransactionReceipt", `["` + pending.Hex() + `"]`},
		{"eth_getTransactionByHash", `["` + pending.Hex() + `"]`},
		{"eth_getBlockByNumber", byNumber},
	} {
		if h := blockHashOf(t, rpcResult(t, url, c.method, c.params)); h == dropped {
			t.Fatalf("%s answered from the dropped block %s", c.method, dropped)
		}
	}
	// What was final is still served from the cache.
	before = cacheHits(t, s)
	rpcResult(t, url, "eth_getTransactionReceipt", `["`+final.Hex()+`"]`)
	if cacheHits(t, s) == before {
		t.Fatal("the final receipt is no longer served from the cache")
	}
}
