package cache

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth/filters"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// evmTable is the method table of an EVM network: the rules the cache reads.
var evmTable = methods.NewTable(methods.FamilyEVM)

func TestPolicy(t *testing.T) {
	t.Parallel()
	const fin = 100
	cases := []struct {
		name, method, params, result string
		want                         bool
	}{
		{"tx in a final block", "eth_getTransactionByHash", `["0x01"]`, `{"blockNumber":"0x64","hash":"0x01"}`, true},
		{"tx in a block after final", "eth_getTransactionByHash", `["0x01"]`, `{"blockNumber":"0x65"}`, false},
		{"pending tx", "eth_getTransactionByHash", `["0x01"]`, `{"blockNumber":null}`, false},
		{"unknown tx", "eth_getTransactionByHash", `["0x01"]`, `null`, false},
		{"escaped key does not count", "eth_getTransactionReceipt", `["0x01"]`, `{"block\u004eumber":"0x1"}`, false},
		{"block by hash, final", "eth_getBlockByHash", `["0x01",false]`, `{"number":"0x1"}`, true},
		{"block by hash, not final", "eth_getBlockByHash", `["0x01",false]`, `{"number":"0x99"}`, false},
		{"block by number, final", "eth_getBlockByNumber", `["0x64",false]`, `{"number":"0x64"}`, true},
		{"block by number, not final", "eth_getBlockByNumber", `["0x65",false]`, `{"number":"0x65"}`, false},
		{"latest", "eth_getBlockByNumber", `["latest",false]`, `{"number":"0x1"}`, false},
		{"finalized tag", "eth_getBlockByNumber", `["finalized",false]`, `{"number":"0x1"}`, false},
		{"call at a final number", "eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"0x10"]`, `"0x"`, true},
		{"call at latest", "eth_call", `[{"to":"0x00000000000000000000000000000000000000aa"},"latest"]`, `"0x"`, false},
		{"call by block hash object", "eth_call", `[{},{"blockHash":"0x01"}]`, `"0x"`, false},
		{"storage at a final number", "eth_getStorageAt", `["0x00000000000000000000000000000000000000aa","0x0","0x1"]`, `"0x00"`, true},
		{"logs in a final range", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64"}]`, `[]`, true},
		{"logs to latest", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"latest"}]`, `[]`, false},
		{"logs without toBlock", "eth_getLogs", `[{"fromBlock":"0x1"}]`, `[]`, false},
		{"logs by block hash", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2","blockHash":"0x01"}]`, `[]`, false},
		{"logs, toBlock repeated in capitals", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64","TOBLOCK":"latest"}]`, `[]`, false},
		{"logs, toBlock repeated in capitals first", "eth_getLogs", `[{"fromBlock":"0x1","TOBLOCK":"latest","toBlock":"0x64"}]`, `[]`, false},
		{"logs, fromBlock repeated with another number", "eth_getLogs", `[{"fromBlock":"0x1","FromBlock":"0x2","toBlock":"0x64"}]`, `[]`, false},
		{"logs, toBlock repeated as null", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64","toblock":null}]`, `[]`, false},
		{"logs, toBlock with a Kelvin sign", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64","toBlocK":"latest"}]`, `[]`, false},
		{"logs, toBlock escaped", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64","to\u0042lock":"latest"}]`, `[]`, false},
		{"logs, toBlock with an escaped Kelvin sign", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x64","toBloc\u212a":"latest"}]`, `[]`, false},
		{"logs, blockHash in capitals", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2","BLOCKHASH":"0x01"}]`, `[]`, false},
		{"logs, blockHash with a long s", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2","blockHaſh":"0x01"}]`, `[]`, false},
		{"logs, only capital keys", "eth_getLogs", `[{"FROMBLOCK":"0x1","TOBLOCK":"0x2"}]`, `[]`, false},
		{"logs, same number twice", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2","TOBLOCK":"0x2"}]`, `[]`, true},
		{"not a cacheable method", "eth_blockNumber", `[]`, `"0x1"`, false},
		{"error answer", "eth_getBlockByNumber", `["0x1",false]`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &jsonrpc.Response{Result: []byte(tc.result)}
			if tc.result == "" {
				resp = jsonrpc.ErrorResponse(jsonrpc.ErrInternal("x"))
			}
			rule, _ := evmTable.Lookup(tc.method)
			got := Before(rule, []byte(tc.params), fin) && After(rule, resp, fin)
			if got != tc.want {
				t.Fatalf("cacheable = %v, want %v", got, tc.want)
			}
			if Before(rule, []byte(tc.params), 0) {
				t.Fatal("cacheable while the finalized block is unknown")
			}
		})
	}
}

func FuzzPolicy(f *testing.F) {
	f.Add("eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x2"}]`, `[]`)
	f.Add("eth_call", `[{},"0x1"]`, `"0x"`)
	f.Add("eth_getTransactionReceipt", `["0x01"]`, `{"blockNumber":"0x1"}`)
	f.Fuzz(func(t *testing.T, method, params, result string) {
		rule, _ := evmTable.Lookup(method)
		_ = Before(rule, []byte(params), 50)
		if Known(evmTable, method) {
			_ = After(rule, &jsonrpc.Response{Result: []byte(result)}, 50)
		}
	})
}

// FuzzLogsFinal: a filter the cache takes as final is final as go-ethereum
// decodes it (filters.FilterCriteria through encoding/json, as its
// eth_getLogs does) and as a case-sensitive parser reads it (the exact
// keys). go-ethereum refusing the filter is allowed: its answer is an
// error, which is never kept.
func FuzzLogsFinal(f *testing.F) {
	const fin = 0x100
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80"}`)
	f.Add(`{"toBlock":"0x180","TOBLOCK":"latest"}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80","TOBLOCK":"latest"}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80","toBlock":null}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80","TOBLOCK":"0x80"}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80","to\u0062lock":"pending"}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80","toBlocK":"0x200"}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x80","blockHaſh":"0x0000000000000000000000000000000000000000000000000000000000000001"}`)
	f.Add(`{"fromBlock":"0x1","toBlock":"0x8\u0030"}`)
	f.Fuzz(func(t *testing.T, filter string) {
		if !json.Valid([]byte(filter)) || !logsFinal([]byte("["+filter+"]"), fin) {
			return // requests reach the cache only once they are valid JSON
		}
		var fc filters.FilterCriteria
		if err := json.Unmarshal([]byte(filter), &fc); err == nil {
			if fc.BlockHash != nil || fc.FromBlock == nil || fc.ToBlock == nil || fc.FromBlock.Sign() < 0 ||
				fc.FromBlock.Cmp(fc.ToBlock) > 0 || !fc.ToBlock.IsUint64() || fc.ToBlock.Uint64() > fin {
				t.Fatalf("cached as final, go-ethereum reads from %v to %v (block hash %v)", fc.FromBlock, fc.ToBlock, fc.BlockHash)
			}
		}
		var exact struct {
			FromBlock, ToBlock *string
		}
		_ = jsonrpc.Fields([]byte(filter), func(key, value []byte) bool {
			var s *string
			_ = json.Unmarshal(value, &s)
			switch string(key) {
			case "fromBlock":
				exact.FromBlock = s
			case "toBlock":
				exact.ToBlock = s
			}
			return true
		})
		if exact.FromBlock == nil || exact.ToBlock == nil {
			t.Fatalf("cached as final without both exact keys")
		}
		to, err := hexutil.DecodeUint64(*exact.ToBlock)
		if err != nil || to > fin {
			t.Fatalf("cached as final, a case-sensitive parser reads toBlock %q", *exact.ToBlock)
		}
	})
}

func TestQuantity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw string
		want      uint64
		ok        bool
	}{
		{"plain", `"0x1f"`, 31, true},
		{"zero", `"0x0"`, 0, true},
		{"escaped digit", `"0x1\u0066"`, 31, true},
		{"no prefix", `"1f"`, 0, false},
		{"leading zero", `"0x01"`, 0, false},
		{"number", `31`, 0, false},
		{"empty", `""`, 0, false},
		{"over 64 bits", `"0x10000000000000000"`, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := quantity([]byte(tc.raw))
			if got != tc.want || ok != tc.ok {
				t.Fatalf("quantity(%s) = %d, %v; want %d, %v", tc.raw, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestBlockOf(t *testing.T) {
	table := methods.NewTable(methods.FamilyEVM)
	h := "0x" + strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name, method, params, result string
		want                         Block
		ok                           bool
	}{
		{"a block by number", "eth_getBlockByNumber", `["0x20",false]`, `{"number":"0x20","hash":"` + h + `"}`, Block{0x20, common.HexToHash(h)}, true},
		{"a block by number, another in the answer", "eth_getBlockByNumber", `["0x20",false]`, `{"number":"0x21","hash":"` + h + `"}`, Block{}, false},
		{"a call at a number", "eth_call", `[{},"0x20"]`, `"0x00"`, Block{Number: 0x20}, true},
		{"a call at a tag", "eth_call", `[{},"latest"]`, `"0x00"`, Block{}, false},
		{"a receipt", "eth_getTransactionReceipt", `["0x01"]`, `{"blockNumber":"0x9","blockHash":"` + h + `"}`, Block{9, common.HexToHash(h)}, true},
		{"a receipt without its block", "eth_getTransactionReceipt", `["0x01"]`, `{"status":"0x1"}`, Block{}, false},
		{"logs", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x9"}]`, `[]`, Block{Number: 9}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := table.Lookup(tc.method)
			got, ok := BlockOf(r, []byte(tc.params), &jsonrpc.Response{Result: []byte(tc.result)})
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("BlockOf = %v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
