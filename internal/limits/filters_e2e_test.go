package limits_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// newKey creates one more key on s and returns its URL.
func newKey(t *testing.T, s *service.Service, plan string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := s.KeyManager.Create(ctx, keys.CreateParams{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Keys.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	return s.URL() + "/v3/" + c.Key
}

// newFilterID installs a filter through url and returns its id.
func newFilterID(t *testing.T, url, method, params string) string {
	t.Helper()
	a := call(t, url, method, params)
	var id string
	if a.Error != nil || json.Unmarshal(a.Result, &id) != nil || id == "" {
		t.Fatalf("%s %.200s: %s %s", method, params, a.Error, a.Result)
	}
	return id
}

func quoted(s string) string { return `["` + s + `"]` }

// TestFilterLogsLikeGetLogs: a filter whose eth_getLogs is refused gets the
// same refusal (code, message and the range that fits) from
// eth_getFilterLogs; one that fits is answered with the node's own bytes,
// whether nodegate asks in one call or splits the range.
func TestFilterLogsLikeGetLogs(t *testing.T) {
	c := testChain(t)
	proxy, seen := countingProxy(t, c.url)
	gw := gateway(t, proxy, nil)
	tests := []struct {
		name   string
		filter string
		over   bool
	}{
		{"the whole chain, no topic: 22,505 logs", filter("0x0", "latest", nil), true},
		{"earliest to latest, dense topic", filter("earliest", "latest", topicDense), true},
		{"three dense blocks, one call", filter(hexn(c.blockA), hexn(c.blockC), topicDense), true},
		{"exactly at the limit, split", filter("0x0", "latest", topicSpread), false},
		{"exactly at the limit, one call", filter(hexn(c.blockA), hexn(c.blockB), topicDense), false},
		{"from a spread block to latest", filter(hexn(c.spread[8]), "", nil), false},
		{"no range: latest", fmt.Sprintf(`[{"topics":["%s"]}]`, topicLast), false},
		{"by block hash", fmt.Sprintf(`[{"blockHash":"%s"}]`, blockHash(t, c, c.spread[1])), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newFilterID(t, gw, "eth_newFilter", tc.filter)
			before := len(seen.logRanges())
			got := call(t, gw, "eth_getFilterLogs", quoted(id))
			logsCalls := len(seen.logRanges()) - before
			want := call(t, gw, "eth_getLogs", tc.filter)
			if tc.over {
				g, w := got.err(t), want.err(t)
				if g.Code != -32005 || g.Message != w.Message || !bytes.Equal(g.Data, w.Data) {
					t.Fatalf("eth_getFilterLogs: %d %q %s; eth_getLogs: %d %q %s", g.Code, g.Message, g.Data, w.Code, w.Message, w.Data)
				}
				if logsCalls > 1 {
					t.Fatalf("%d eth_getLogs sub-ranges asked for a refused filter, want at most 1", logsCalls)
				}
				return
			}
			direct := call(t, c.url, "eth_getLogs", tc.filter)
			if got.Error != nil || !bytes.Equal(got.Result, direct.Result) {
				t.Fatalf("eth_getFilterLogs: %s, %d bytes; the node's eth_getLogs: %d bytes", got.Error, len(got.Result), len(direct.Result))
			}
		})
	}
}

// TestNewFilterParams: eth_newFilter obeys eth_getLogs's parameter limit
// with its error; 5,000 addresses pass, 5,001 do not.
func TestNewFilterParams(t *testing.T) {
	c := testChain(t)
	gw := gateway(t, c.url, nil)
	addrs := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`"0x%040x"`, i+1)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	newFilterID(t, gw, "eth_newFilter", `[{"address":`+addrs(5000)+`}]`)
	for _, f := range []string{
		`{"address":` + addrs(5001) + `}`,
		`{"address":` + addrs(4999) + `,"topics":[["0x` + strings.Repeat("00", 32) + `"],"0x` + strings.Repeat("00", 32) + `"]}`,
	} {
		e := call(t, gw, "eth_newFilter", "["+f+"]").err(t)
		if w := call(t, gw, "eth_getLogs", "["+f+"]").err(t); e.Code != -32005 || e.Message != "query exceeds max parameters (5000)" || e.Message != w.Message || e.Code != w.Code {
			t.Fatalf("eth_newFilter: %d %q; eth_getLogs: %d %q", e.Code, e.Message, w.Code, w.Message)
		}
	}
}

// TestFilterBelongsToItsKey: another key's filter id is answered as the
// node answers an id it does not know, for every kind of filter and every
// method taking an id; the owner keeps using it.
func TestFilterBelongsToItsKey(t *testing.T) {
	c := testChain(t)
	s := servicetest.Start(t, func() config.Config { cfg := servicetest.Config(t); cfg.Upstream = c.url; return cfg }())
	owner := s.URL() + "/v3/" + s.GeneratedKey
	other := newKey(t, s, config.PlanTeam)
	ids := map[string]string{
		"log":        newFilterID(t, owner, "eth_newFilter", filter(hexn(c.spread[0]), hexn(c.spread[0]), nil)),
		"block":      newFilterID(t, owner, "eth_newBlockFilter", `[]`),
		"pending tx": newFilterID(t, owner, "eth_newPendingTransactionFilter", `[]`),
	}
	unknown := "0x" + strings.Repeat("1f", 16)
	nodeSays := call(t, c.url, "eth_getFilterChanges", quoted(unknown))
	if e := nodeSays.err(t); e.Code != -32000 || e.Message != "filter not found" {
		t.Fatalf("the node answers an unknown id with %s", nodeSays.Error)
	}
	for kind, id := range ids {
		t.Run(kind, func(t *testing.T) {
			for _, m := range []string{"eth_getFilterChanges", "eth_getFilterLogs"} {
				if got := call(t, other, m, quoted(id)); !bytes.Equal(got.Error, nodeSays.Error) {
					t.Fatalf("other key, %s: %s %s, the node says %s for an unknown id", m, got.Error, got.Result, nodeSays.Error)
				}
			}
			if got := call(t, other, "eth_uninstallFilter", quoted(id)); string(got.Result) != "false" {
				t.Fatalf("other key, eth_uninstallFilter: %s %s", got.Error, got.Result)
			}
			if got := call(t, owner, "eth_getFilterChanges", quoted(id)); got.Error != nil {
				t.Fatalf("owner, eth_getFilterChanges after the other key's attempts: %s", got.Error)
			}
			if got := call(t, owner, "eth_uninstallFilter", quoted(id)); string(got.Result) != "true" {
				t.Fatalf("owner, eth_uninstallFilter: %s %s", got.Error, got.Result)
			}
			if got := call(t, owner, "eth_getFilterChanges", quoted(id)); !bytes.Equal(got.Error, nodeSays.Error) {
				t.Fatalf("owner, after uninstalling: %s %s", got.Error, got.Result)
			}
		})
	}
	if got := call(t, owner, "eth_getFilterLogs", quoted(unknown)); !bytes.Equal(got.Error, nodeSays.Error) {
		t.Fatalf("unknown id: %s", got.Error)
	}
}

// TestFilterChangesLikeGetLogs: on the dev chain, a block with more logs
// than the plan's limit makes the log filter's changes refused as
// eth_getLogs of that block is.
func TestFilterChangesLikeGetLogs(t *testing.T) {
	cfg := servicetest.Config(t)
	cfg.Limits.Plans = config.PlanLimits{"team": {GetLogsMaxResults: 3}}
	s := servicetest.Start(t, cfg)
	gw := s.URL() + "/v3/" + s.GeneratedKey
	few := newFilterID(t, gw, "eth_newFilter", `[{"topics":["`+topicLast.Hex()+`"]}]`)
	many := newFilterID(t, gw, "eth_newFilter", `[{"topics":["`+topicDense.Hex()+`"]}]`)

	acc := evmnode.DevAccounts(1)[0]
	emitter := crypto.CreateAddress(acc.Address, 0)
	send := func(nonce uint64, to *common.Address, data []byte) (block string) {
		tx, err := types.SignNewTx(acc.Key, types.LatestSignerForChainID(big.NewInt(evmnode.DevChainID)), &types.DynamicFeeTx{
			ChainID: big.NewInt(evmnode.DevChainID), Nonce: nonce, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 300_000, To: to, Data: data,
		})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tx.MarshalBinary()
		a := call(t, gw, "eth_sendRawTransactionSync", quoted(hexutil.Encode(raw)))
		var receipt struct{ BlockNumber, Status string }
		if a.Error != nil || json.Unmarshal(a.Result, &receipt) != nil || receipt.Status != "0x1" {
			t.Fatalf("send: %s %.300s", a.Error, a.Result)
		}
		return receipt.BlockNumber
	}
	send(0, nil, initCode(emitterCode))
	emit := func(n int, topic common.Hash) []byte {
		return append(common.BigToHash(big.NewInt(int64(n))).Bytes(), topic.Bytes()...)
	}
	send(1, &emitter, emit(2, topicLast)) // within the limit
	block := send(2, &emitter, emit(5, topicDense))

	// The node hands its filters their logs shortly after the block; poll
	// until the answer is not empty.
	changes := func(id string) answer {
		var a answer
		testenv.WaitFor(t, 30*time.Second, "filter "+id+"'s changes", func() bool {
			a = call(t, gw, "eth_getFilterChanges", quoted(id))
			return a.Error != nil || string(a.Result) != "[]"
		})
		return a
	}
	if n := logs(t, changes(few)); n != 2 {
		t.Fatalf("the small filter's changes hold %d logs, want 2", n)
	}
	e := changes(many).err(t)
	w := call(t, gw, "eth_getLogs", `[{"fromBlock":"`+block+`","toBlock":"`+block+`"}]`).err(t)
	if e.Code != -32005 || e.Message != "query returned more than 3 results" || e.Message != w.Message || !bytes.Equal(e.Data, w.Data) {
		t.Fatalf("eth_getFilterChanges: %d %q %s; eth_getLogs of the block: %d %q %s", e.Code, e.Message, e.Data, w.Code, w.Message, w.Data)
	}
}
