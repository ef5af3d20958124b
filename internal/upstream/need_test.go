package upstream

import (
	"encoding/json"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// ruleOf is method's rule in the method table of its family (an
// unlisted method's rule, with no facts, when neither table lists it).
func ruleOf(method string) *methods.Rule {
	if r, err := starknetTable.Lookup(method); err == nil && !r.Unlisted {
		return r
	}
	r, _ := evmTable.Lookup(method)
	return r // nil for a name no table takes: nothing known
}

var (
	evmTable      = methods.NewTable(methods.FamilyEVM)
	starknetTable = methods.NewTable(methods.FamilyStarknet)
)

func TestBlockOf(t *testing.T) {
	tests := []struct {
		name, method, params string
		want                 blockRef
	}{
		{"number", "eth_getBlockByNumber", `["0x1f",false]`, blockRef{number: 31, named: true}},
		{"latest", "eth_getBlockByNumber", `["latest",false]`, blockRef{}},
		{"finalized", "eth_getBlockByNumber", `["finalized",false]`, blockRef{tag: tagFinalized}},
		{"safe", "eth_call", `[{},"safe"]`, blockRef{tag: tagSafe}},
		{"earliest", "eth_getBlockByNumber", `["earliest",false]`, blockRef{number: 0, named: true}},
		{"second param", "eth_getBalance", `["0x00000000000000000000000000000000000000aa","0x10"]`, blockRef{number: 16, named: true}},
		{"missing optional", "eth_estimateGas", `[{"to":"0x00000000000000000000000000000000000000aa"}]`, blockRef{}},
		{"third param", "eth_getStorageAt", `["0xaa","0x0","0x2"]`, blockRef{number: 2, named: true}},
		{"eip-1898 number", "eth_call", `[{},{"blockNumber":"0x7"}]`, blockRef{number: 7, named: true}},
		{"eip-1898 hash", "eth_call", `[{},{"blockHash":"0x01"}]`, blockRef{}},
		{"logs range", "eth_getLogs", `[{"fromBlock":"0x1","toBlock":"0x9"}]`, blockRef{number: 9, named: true}},
		{"logs to latest", "eth_getLogs", `[{"fromBlock":"0x1"}]`, blockRef{}},
		{"logs by hash", "eth_getLogs", `[{"toBlock":"0x9","blockHash":"0x01"}]`, blockRef{}},
		{"by hash", "eth_getTransactionReceipt", `["0x01"]`, blockRef{}},
		{"unknown method", "eth_whatever", `["0x5"]`, blockRef{}},
		{"the chain's", "eth_chainId", `[]`, blockRef{number: 0, named: true}},
		{"not hex", "eth_getBlockByNumber", `[17,false]`, blockRef{}},
		{"leading zero", "eth_getBlockByNumber", `["0x01",false]`, blockRef{}},
		{"not an array", "eth_getBlockByNumber", `{"a":1}`, blockRef{}},
		{"empty", "eth_getBlockByNumber", ``, blockRef{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := kindOf(ruleOf(tc.method)).blockOf(json.RawMessage(tc.params)); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name, method, result string
		err                  *jsonrpc.Error
		lag                  bool
		proves               uint64 // 0: nothing
	}{
		{"head", "eth_blockNumber", `"0x10"`, nil, false, 16},
		{"starknet head", "starknet_blockNumber", `17`, nil, false, 17},
		{"block", "eth_getBlockByNumber", `{"hash":"0x1","number":"0x5"}`, nil, false, 5},
		{"receipt", "eth_getTransactionReceipt", `{"blockNumber":"0x6","logs":[]}`, nil, false, 6},
		{"null receipt", "eth_getTransactionReceipt", `null`, nil, true, 0},
		{"null block", "eth_getBlockByHash", `null`, nil, true, 0},
		{"null call result", "eth_call", `null`, nil, false, 0},
		{"beyond head", "eth_getLogs", ``, jsonrpc.NewError(-32602, "invalid block range params: block range extends beyond current head block"), true, 0},
		{"starknet block", "starknet_getBlockWithTxs", ``, jsonrpc.NewError(24, "Block not found"), true, 0},
		{"revert", "eth_call", ``, jsonrpc.NewError(3, "execution reverted"), false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := &jsonrpc.Response{Result: json.RawMessage(tc.result), Err: tc.err}
			k := kindOf(ruleOf(tc.method))
			if got := k.lagAnswer(resp); got != tc.lag {
				t.Fatalf("lag answer %v, want %v", got, tc.lag)
			}
			n, ok := k.provenHead(resp)
			if ok != (tc.proves != 0) || n != tc.proves {
				t.Fatalf("proves %d %v, want %d", n, ok, tc.proves)
			}
		})
	}
}

func FuzzBlockOf(f *testing.F) {
	for _, s := range []string{`["0x1f",false]`, `[{},{"blockNumber":"0x7"}]`, `[{"fromBlock":"0x1","toBlock":"0x9"}]`, `[`, `["0x`, `[{"toBlock":{"blockNumber":"0x2"}}]`} {
		f.Add("eth_getBlockByNumber", s)
		f.Add("eth_call", s)
		f.Add("eth_getLogs", s)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		k := kindOf(ruleOf(method))
		ref := k.blockOf(json.RawMessage(params))
		if !ref.named && ref.number != 0 {
			t.Fatalf("a number without a named block: %+v", ref)
		}
		_, _ = k.provenHead(&jsonrpc.Response{Result: json.RawMessage(params)})
	})
}
