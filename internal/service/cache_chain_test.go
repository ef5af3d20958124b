package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// chainNode is an EVM node on loopback serving a chain of 0x40 blocks, all
// final, whose block hashes are its own: chain id and genesis hash as set.
type chainNode struct {
	srv          *httptest.Server
	id           uint64
	genesis, tag string
	block5       atomic.Int64 // eth_getBlockByNumber("0x5") calls
}

func newChainNode(t *testing.T, id uint64, genesis, tag string) *chainNode {
	n := &chainNode{id: id, genesis: genesis, tag: tag}
	n.srv = httptest.NewServer(http.HandlerFunc(n.serve))
	t.Cleanup(n.srv.Close)
	return n
}

func (n *chainNode) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil {
		http.Error(w, "one call at a time", http.StatusBadRequest)
		return
	}
	result := "null"
	switch req.Method {
	case "eth_chainId":
		result = fmt.Sprintf(`"0x%x"`, n.id)
	case "eth_blockNumber":
		result = `"0x40"`
	case "eth_getBlockByNumber":
		var at string
		_ = json.Unmarshal(req.Params[0], &at)
		switch at {
		case "0x0":
			result = fmt.Sprintf(`{"number":"0x0","hash":"%s","gasLimit":"0x1c9c380"}`, n.genesis)
		case "0x5":
			n.block5.Add(1)
			result = realBlock(5, []byte(n.tag))
		default: // latest, finalized, the head
			result = `{"number":"0x40","hash":"0x` + strings.Repeat("4", 64) + `","gasLimit":"0x1c9c380"}`
		}
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
}

// realBlock is block number of a chain, with extra as its extraData, as
// a node answers it: a real header and its hash (the gateway checks
// answers, docs/pools.md).
func realBlock(number uint64, extra []byte) string {
	h := &types.Header{Number: new(big.Int).SetUint64(number), Difficulty: new(big.Int), GasLimit: 30_000_000, Extra: extra,
		UncleHash: types.EmptyUncleHash, TxHash: types.EmptyTxsHash, ReceiptHash: types.EmptyReceiptsHash}
	b, _ := h.MarshalJSON()
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["hash"], m["transactions"], m["uncles"] = h.Hash(), []string{}, []string{}
	out, _ := json.Marshal(m)
	return string(out)
}

// TestCacheKeepsChainsApart: two gateways share a Redis and a network name
// (two fleets, or one network before and after a reload moved it to
// another chain). An answer the first kept about its chain is never served
// by the second about its own: the cache key carries the chain id and the
// genesis hash.
func TestCacheKeepsChainsApart(t *testing.T) {
	rc := redistest.Require(t)
	network := "cachechains" + fmt.Sprint(time.Now().UnixNano())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		keys, _ := rc.Keys(ctx, "nodegate:cache:"+network+":*").Result()
		if len(keys) > 0 {
			rc.Del(ctx, keys...)
		}
	})
	genesis := func(b byte) string { return "0x" + strings.Repeat(fmt.Sprintf("%02x", b), 32) }
	tests := []struct {
		name   string
		first  [2]any // chain id, genesis hash
		second [2]any
	}{
		{"another chain id", [2]any{uint64(1), genesis(0xa1)}, [2]any{uint64(2), genesis(0xa1)}},
		{"another genesis, same chain id", [2]any{uint64(1337), genesis(0xb1)}, [2]any{uint64(1337), genesis(0xb2)}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("%s-%d", network, i)
			gateway := func(n *chainNode) string {
				cfg := servicetest.Config(t)
				cfg.Networks = []config.Network{{Name: name, Family: "evm", Upstreams: []config.Upstream{{Name: "node", URL: n.srv.URL}},
					Pool:  config.Pool{HeadInterval: 50 * time.Millisecond},
					Cache: config.Cache{RedisURL: "redis://" + redistest.Addr() + "/0"}}}
				s := servicetest.Start(t, cfg)
				pool := s.Networks()[0].Pool
				testenv.WaitFor(t, 30*time.Second, "the pool knows the chain and its finalized block", func() bool {
					return pool.Finalized() == 0x40 && pool.Chain() != ""
				})
				return s.URL() + "/v3/" + s.GeneratedKey
			}
			a := newChainNode(t, tc.first[0].(uint64), tc.first[1].(string), "first")
			b := newChainNode(t, tc.second[0].(uint64), tc.second[1].(string), "second")
			urlA := gateway(a)
			for range 3 { // kept the second time it is fetched
				rpcResult(t, urlA, "eth_getBlockByNumber", `["0x5",false]`)
			}
			if got := a.block5.Load(); got == 3 {
				t.Fatal("the first gateway served block 5 from its node every time: nothing was cached, the test shows nothing")
			}
			urlB := gateway(b)
			got := rpcResult(t, urlB, "eth_getBlockByNumber", `["0x5",false]`)
			if !strings.Contains(string(got), fmt.Sprintf("%x", "second")) {
				t.Fatalf("the second chain's block 5 is the first chain's: %s", got)
			}
			if b.block5.Load() != 1 {
				t.Fatalf("the second gateway asked its node %d times for block 5, want 1", b.block5.Load())
			}
		})
	}
}
