package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/keys"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/service/keyconfig"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

const (
	allowed = "0x00000000000000000000000000000000000000aa"
	other   = "0x00000000000000000000000000000000000000bb"
)

// contractKey is a real key (SQLite store, cache) with a contract allowlist.
func contractKey(t *testing.T) *keys.Key {
	t.Helper()
	ctx := context.Background()
	store, err := keys.OpenSQLite(ctx, filepath.Join(t.TempDir(), "keys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	m := &keys.Manager{Store: store, Plans: keyconfig.Defaults()}
	c, err := m.Create(ctx, keys.CreateParams{Plan: config.PlanTeam, Settings: keys.Patch{AllowedContracts: &[]string{allowed}}})
	if err != nil {
		t.Fatal(err)
	}
	cache, err := keys.NewCache(ctx, store, keyconfig.Defaults(), config.PlanTeam, nil, keys.CacheOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cache.Close)
	k, ok := cache.Lookup(c.Key)
	if !ok {
		t.Fatal("lookup")
	}
	return k
}

func rawTx(t *testing.T, to *common.Address) string {
	key, _ := crypto.GenerateKey()
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(common.Big1), &types.LegacyTx{To: to, Gas: 21000, GasPrice: common.Big1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tx.MarshalBinary()
	return hexutil.Encode(b)
}

func TestAllowContracts(t *testing.T) {
	k := contractKey(t)
	a, o := common.HexToAddress(allowed), common.HexToAddress(other)
	p := Build(Options{})
	net := &Network{Name: "mainnet", Methods: methods.NewTable(methods.FamilyEVM), Upstream: upstream.Func{ID: "ok", Fn: func(ctx context.Context, body []byte) ([]byte, error) {
		if strings.Contains(string(body), `"eth_getLogs"`) {
			return []byte(`{"jsonrpc":"2.0","id":1,"result":[]}`), nil // the getLogs limits need an array
		}
		return []byte(`{"jsonrpc":"2.0","id":1,"result":"0x1"}`), nil
	}}}
	cases := []struct {
		method, params string
		ok             bool
	}{
		{"eth_call", `[{"to":"` + allowed + `"},"latest"]`, true},
		{"eth_call", `[{"to":"` + strings.ToUpper(allowed[2:3]) + `"},"latest"]`, false}, // bad params are -32602, checked before
		{"eth_call", `[{"to":"` + other + `"},"latest"]`, false},
		{"eth_call", `[{"from":"` + allowed + `"},"latest"]`, false}, // no to: could be anything
		{"eth_estimateGas", `[{"to":"` + allowed + `"}]`, true},
		{"eth_estimateGas", `[{"to":"` + other + `"}]`, false},
		{"eth_getLogs", `[{"address":"` + allowed + `"}]`, true},
		{"eth_getLogs", `[{"address":["` + allowed + `","` + other + `"]}]`, false},
		{"eth_getLogs", `[{"fromBlock":"0x1"}]`, false}, // no address: every contract
		{"eth_getStorageAt", `["` + allowed + `","0x0","latest"]`, true},
		{"eth_getStorageAt", `["` + other + `","0x0","latest"]`, false},
		{"eth_getBalance", `["` + allowed + `","latest"]`, true},
		{"eth_getCode", `["` + other + `","latest"]`, false},
		{"eth_getCode", `[]`, false},
		{"eth_getCode", `{"x":1}`, false},
		{"eth_getProof", `["` + allowed + `",[],"latest"]`, true},
		{"eth_createAccessList", `[{"to":"` + other + `"}]`, false},
		{"eth_newFilter", `[{"address":"` + allowed + `"}]`, true},
		{"eth_subscribe", `["newHeads"]`, true},
		{"eth_subscribe", `["logs",{"address":"` + other + `"}]`, false},
		{"eth_subscribe", `["logs",{"address":"` + allowed + `"}]`, true},
		{"eth_getStorageValues", `[{"` + allowed + `":["0x0"]},"latest"]`, true},
		{"eth_getStorageValues", `[{"` + allowed + `":["0x0"],"` + other + `":[]},"latest"]`, false},
		{"eth_simulateV1", `[{"blockStateCalls":[{"calls":[{"to":"` + allowed + `"}]}]},"latest"]`, false}, // overrides by design: refused
		{"eth_simulateV1", `[{"blockStateCalls":[{"calls":[{"to":"` + allowed + `"},{"to":"` + other + `"}]}]},"latest"]`, false},
		{"eth_sendRawTransaction", `["` + rawTx(t, &a) + `"]`, true},
		{"eth_sendRawTransaction", `["` + rawTx(t, &o) + `"]`, false},
		{"eth_sendRawTransaction", `["` + rawTx(t, nil) + `"]`, false},
		{"eth_sendRawTransaction", `["0x1234"]`, false},
		{"eth_blockNumber", `[]`, true}, // names no contract
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.params[:min(len(tc.params), 60)], func(t *testing.T) {
			c := &Call{Req: jsonrpc.Request{ID: []byte("1"), Method: tc.method, Params: []byte(tc.params)}, Key: k, Network: net}
			resp := p.Serve(context.Background(), c)
			if resp.Err != nil && resp.Err.Code == jsonrpc.CodeMethodNotFound && tc.method == "eth_subscribe" {
				resp = &jsonrpc.Response{} // past the allowlist: only the session stage refuses, as on any HTTP call
			}
			refused := resp.Err != nil && resp.Err.Code == jsonrpc.CodeUnauthorized && resp.Err.Status == 403
			if tc.ok && resp.Err != nil {
				t.Fatalf("refused: %+v", resp.Err)
			}
			if !tc.ok && resp.Err == nil {
				t.Fatal("allowed")
			}
			if !tc.ok && !refused && resp.Err.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("error = %+v, want 403 -32002 or -32602", resp.Err)
			}
			// A bypass from the secret lifts the contract allowlist.
			c2 := &Call{Req: c.Req, Key: k, Network: net, Client: ClientInfo{BypassAllowlists: true}}
			if r := p.Serve(context.Background(), c2); r.Err != nil && r.Err.Status == 403 {
				t.Fatal("refused despite the secret's bypass")
			}
		})
	}
}

func FuzzContractExtract(f *testing.F) {
	for _, s := range []string{`[{"to":"` + allowed + `"}]`, `[{"address":[]}]`, `["logs",{}]`, `[{"blockStateCalls":[{"calls":[{}]}]}]`, `[1]`, `[`} {
		f.Add("eth_call", s)
		f.Add("eth_subscribe", s)
		f.Add("eth_simulateV1", s)
	}
	table := methods.NewTable(methods.FamilyEVM)
	f.Fuzz(func(t *testing.T, method, params string) {
		r, e := table.Lookup(method)
		if e != nil || r.Contracts == methods.ContractsNone {
			return
		}
		_, _ = extractors[r.Contracts](&Call{Req: jsonrpc.Request{Method: method, Params: []byte(params)}, Rule: r})
	})
}
