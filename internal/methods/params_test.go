package methods_test

import (
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// paramCase is one params value for one method: accepted when msg is "",
// else refused with -32602 and exactly that message (go-ethereum's words).
type paramCase struct {
	name, params, msg string
}

func checkParams(t *testing.T, method string, cases []paramCase) {
	t.Helper()
	rule, lerr := methods.NewTable(methods.FamilyEVM).Lookup(method)
	if lerr != nil {
		t.Fatalf("lookup %s: %v", method, lerr)
	}
	n := oracleNode(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The expected words are go-ethereum's: the node must agree.
			if d := compareWithGeth(t, n, method, []byte(tc.params)); d != "" {
				t.Errorf("against go-ethereum: %s", d)
			}
			parsed, err := rule.Check([]byte(tc.params))
			if d := parsed.Deferred(); err == nil && d != nil {
				err = d.Err // the gateway's answer once the block resolves (these blocks do)
			}
			switch {
			case tc.msg == "" && err != nil:
				t.Fatalf("refused %s: %v", tc.params, err)
			case tc.msg != "" && err == nil:
				t.Fatalf("accepted %s, want %q", tc.params, tc.msg)
			case err != nil && (err.Code != jsonrpc.CodeInvalidParams || err.Message != tc.msg):
				t.Fatalf("error = %d %q\nwant   -32602 %q", err.Code, err.Message, tc.msg)
			}
		})
	}
}

const h32 = `"0x2222222222222222222222222222222222222222222222222222222222222222"`

func TestGetStorageAtParams(t *testing.T) {
	a := `"0x00000000000000000000000000000000000000aa"`
	checkParams(t, "eth_getStorageAt", []paramCase{
		{"valid", `[` + a + `,"0x0","latest"]`, ""},
		{"block omitted defaults to latest", `[` + a + `,"0x0"]`, ""},
		{"block by hash", `[` + a + `,"0x0",{"blockHash":` + h32 + `}]`, ""},
		{"upper-case hex block", `[` + a + `,"0x0","0x1B4"]`, ""},
		{"slot without 0x, odd length", `[` + a + `,"1b4","latest"]`, ""},
		{"full 32-byte slot", `[` + a + `,` + h32 + `,"latest"]`, ""},
		{"missing all", `[]`, "missing value for required argument 0"},
		{"missing slot", `[` + a + `]`, "missing value for required argument 1"},
		{"null address", `[null,"0x0","latest"]`, "missing value for required argument 0"},
		{"too many", `[` + a + `,"0x0","latest",1]`, "too many arguments, want at most 3"},
		{"short address", `[` + a[:10] + `","0x0","latest"]`, "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Address"},
		{"address without 0x", `["00000000000000000000000000000000000000aa","0x0","latest"]`, "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address"},
		{"slot a number", `[` + a + `,0,"latest"]`, "invalid argument 1: json: cannot unmarshal number into Go value of type string"},
		{"slot too long", `[` + a + `,"0x` + strings.Repeat("f", 65) + `","latest"]`, `storage key too long (want at most 32 bytes): "0x` + strings.Repeat("f", 65) + `"`},
		{"slot bad hex", `[` + a + `,"0xzz","latest"]`, `invalid hex in storage key: "0xzz"`},
		{"bad block wins over bad slot", `[` + a + `,"0xzz","0x00"]`, "invalid argument 2: hex number with leading zero digits"},
		{"block tag misspelled", `[` + a + `,"0x0","Latest"]`, "invalid argument 2: hex string without 0x prefix"},
		{"block hash and number", `[` + a + `,"0x0",{"blockHash":` + h32 + `,"blockNumber":"0x0"}]`, "invalid argument 2: cannot specify both BlockHash and BlockNumber, choose one or the other"},
		{"params not an array", `{}`, "non-array args"},
	})
}

func TestGetLogsParams(t *testing.T) {
	checkParams(t, "eth_getLogs", []paramCase{
		{"empty filter", `[{}]`, ""},
		{"range", `[{"fromBlock":"0x0","toBlock":"latest","address":"0x00000000000000000000000000000000000000aa"}]`, ""},
		{"upper-case hex", `[{"fromBlock":"0x1B4","toBlock":"0x1B5"}]`, ""},
		{"topics with alternatives and wildcards", `[{"topics":[[` + h32 + `,` + h32 + `],null]}]`, ""},
		{"missing", `[]`, "missing value for required argument 0"},
		{"null", `[null]`, "missing value for required argument 0"},
		{"too many", `[{},{}]`, "too many arguments, want at most 1"},
		{"not an object", `["x"]`, "invalid argument 0: json: cannot unmarshal string into Go value of type filters.input"},
		{"blockHash with fromBlock", `[{"blockHash":` + h32 + `,"fromBlock":"0x0"}]`, "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other"},
		{"bad address", `[{"address":"0x12"}]`, "invalid argument 0: invalid address: hex has invalid length 1 after decoding; expected 20 for address"},
		{"non-string address", `[{"address":[1]}]`, "invalid argument 0: non-string address at index 0"},
		{"five topics", `[{"topics":[null,null,null,null,null]}]`, "invalid argument 0: exceed max topics"},
		{"odd topic", `[{"topics":["0x123"]}]`, "invalid argument 0: hex string of odd length"},
		{"leading zero block", `[{"fromBlock":"0x00"}]`, "invalid argument 0: hex number with leading zero digits"},
	})
}

func TestBlockNumberAndIndexParams(t *testing.T) {
	for _, method := range []string{"eth_getUncleByBlockNumberAndIndex", "eth_getTransactionByBlockNumberAndIndex"} {
		t.Run(method, func(t *testing.T) {
			checkParams(t, method, []paramCase{
				{"latest", `["latest","0x0"]`, ""},
				{"every tag", `["finalized","0x1"]`, ""},
				{"upper-case hex number", `["0x1B4","0xA"]`, ""},
				{"upper-case prefix", `["0X1b4","0x0"]`, ""},
				{"missing index", `["latest"]`, "missing value for required argument 1"},
				{"missing all", `[]`, "missing value for required argument 0"},
				{"too many", `["latest","0x0","0x0"]`, "too many arguments, want at most 2"},
				{"null block", `[null,"0x0"]`, "missing value for required argument 0"},
				{"leading zeros", `["0x01","0x0"]`, "invalid argument 0: hex number with leading zero digits"},
				{"empty hex", `["0x","0x0"]`, "invalid argument 0: hex string \"0x\""},
				{"decimal string", `["1","0x0"]`, "invalid argument 0: hex string without 0x prefix"},
				{"number", `[1,"0x0"]`, "invalid argument 0: hex string without 0x prefix"},
				{"too big", `["0x10000000000000000","0x0"]`, "invalid argument 0: hex number > 64 bits"},
				{"block hash object", `[{"blockHash":` + h32 + `},"0x0"]`, "invalid argument 0: hex string without 0x prefix"},
				{"index leading zero", `["latest","0x00"]`, "invalid argument 1: json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint"},
				{"index a number", `["latest",0]`, "invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint"},
			})
		})
	}
}

func TestHashParams(t *testing.T) {
	badHash := []paramCase{
		{"odd length", `["0x222"]`, "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash"},
		{"31 bytes", `["0x` + strings.Repeat("22", 31) + `"]`, "invalid argument 0: hex string has length 62, want 64 for common.Hash"},
		{"33 bytes", `["0x` + strings.Repeat("22", 33) + `"]`, "invalid argument 0: hex string has length 66, want 64 for common.Hash"},
		{"no 0x", `["` + strings.Repeat("22", 32) + `"]`, "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash"},
		{"bad digit", `["0x` + strings.Repeat("zz", 32) + `"]`, "invalid argument 0: json: cannot unmarshal invalid hex string into Go value of type common.Hash"},
		{"number", `[1]`, "invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Hash"},
		{"null", `[null]`, "missing value for required argument 0"},
		{"missing", `[]`, "missing value for required argument 0"},
	}
	for _, method := range []string{"eth_getTransactionByHash", "eth_getTransactionReceipt"} {
		t.Run(method, func(t *testing.T) {
			cases := append([]paramCase{
				{"valid", `[` + h32 + `]`, ""},
				{"upper-case hex", `["0x` + strings.Repeat("AB", 32) + `"]`, ""},
				{"too many", `[` + h32 + `,` + h32 + `]`, "too many arguments, want at most 1"},
			}, badHash...)
			checkParams(t, method, cases)
		})
	}
	t.Run("eth_getTransactionByBlockHashAndIndex", func(t *testing.T) {
		checkParams(t, "eth_getTransactionByBlockHashAndIndex", []paramCase{
			{"valid", `[` + h32 + `,"0x0"]`, ""},
			{"missing index", `[` + h32 + `]`, "missing value for required argument 1"},
			{"too many", `[` + h32 + `,"0x0","0x0"]`, "too many arguments, want at most 2"},
			{"odd hash", `["0x222","0x0"]`, "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash"},
			{"index too big", `[` + h32 + `,"0x10000000000000000"]`, "invalid argument 1: json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint"},
			{"null index", `[` + h32 + `,null]`, "missing value for required argument 1"},
		})
	})
}

func TestCallAndEstimateParams(t *testing.T) {
	call := `{"from":"0x00000000000000000000000000000000000000aa","to":"0x00000000000000000000000000000000000000bb","data":"0x"}`
	shared := []paramCase{
		{"valid", `[` + call + `,"latest"]`, ""},
		{"with overrides", `[` + call + `,"latest",{"0x00000000000000000000000000000000000000aa":{"balance":"0x1"}},{"number":"0x1"}]`, ""},
		{"block by hash", `[` + call + `,{"blockHash":` + h32 + `}]`, ""},
		{"upper-case hex block", `[` + call + `,"0x1B4"]`, ""},
		{"empty call object", `[{},"latest"]`, ""},
		{"missing all", `[]`, "missing value for required argument 0"},
		{"null call", `[null,"latest"]`, "missing value for required argument 0"},
		{"too many", `[` + call + `,"latest",{},{},1]`, "too many arguments, want at most 4"},
		{"call a string", `["x","latest"]`, "invalid argument 0: json: cannot unmarshal string into Go value of type ethapi.TransactionArgs"},
		{"bad to", `[{"to":"0x12"},"latest"]`, "invalid argument 0: hex string has length 2, want 40 for common.Address"},
		{"gas a number", `[{"gas":21000},"latest"]`, "invalid argument 0: json: cannot unmarshal non-string into Go struct field TransactionArgs.gas of type hexutil.Uint64"},
		{"odd data", `[{"data":"0x1"},"latest"]`, "invalid argument 0: json: cannot unmarshal hex string of odd length into Go struct field TransactionArgs.data of type hexutil.Bytes"},
		{"value over 256 bits", `[{"value":"0x1` + strings.Repeat("0", 64) + `"},"latest"]`, "invalid argument 0: json: cannot unmarshal hex number > 256 bits into Go struct field TransactionArgs.value of type *hexutil.Big"},
		{"bad block", `[` + call + `,"0x00"]`, "invalid argument 1: hex number with leading zero digits"},
		{"state override a string", `[` + call + `,"latest","x"]`, "invalid argument 2: json: cannot unmarshal string into Go value of type override.StateOverride"},
		{"block override a number", `[` + call + `,"latest",{},1]`, "invalid argument 3: json: cannot unmarshal number into Go value of type override.BlockOverrides"},
	}
	t.Run("eth_call", func(t *testing.T) {
		checkParams(t, "eth_call", append([]paramCase{
			// docs/spec.md: "the block parameter is required" for eth_call.
			{"block missing", `[` + call + `]`, "missing value for required argument 1"},
			{"block null", `[` + call + `,null]`, "missing value for required argument 1"},
		}, shared...))
	})
	t.Run("eth_estimateGas", func(t *testing.T) {
		checkParams(t, "eth_estimateGas", append([]paramCase{
			{"block missing", `[` + call + `]`, ""},
			{"block null", `[` + call + `,null]`, ""},
		}, shared...))
	})
}

func TestLookup(t *testing.T) {
	evm := methods.NewTable(methods.FamilyEVM)
	refused := []string{
		"admin_peers", "debug_traceTransaction", "personal_sign", "miner_start", "txpool_content",
		"engine_newPayloadV3", "eth_sign", "eth_signTransaction", "eth_signTypedData_v4", "eth_sendTransaction",
		"rollup_pendingTransactions", "foo_bar", "eth_get\u00e9", "eth call", "",
		strings.Repeat("eth_a", 100),
	}
	for _, m := range refused {
		t.Run("refused "+m, func(t *testing.T) {
			r, err := evm.Lookup(m)
			if err == nil {
				t.Fatalf("accepted: %+v", r)
			}
			if err.Code != jsonrpc.CodeMethodNotFound || err.Message != "the method "+m+" does not exist/is not available" {
				t.Fatalf("error = %d %q", err.Code, err.Message)
			}
		})
	}
	forwarded := map[string]bool{ // name -> idempotent
		"eth_chainId": true, "eth_blockNumber": true, "net_version": true, "web3_clientVersion": true,
		"eth_sendRawTransaction": false, "eth_getBalance": true, "eth_call": true,
	}
	for m, idem := range forwarded {
		t.Run("served "+m, func(t *testing.T) {
			r, err := evm.Lookup(m)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if r.Name != m || r.Idempotent != idem || r.Family != methods.FamilyEVM {
				t.Fatalf("rule = %+v", r)
			}
		})
	}
	t.Run("rollup method on the starknet family", func(t *testing.T) {
		r, err := methods.NewTable(methods.FamilyStarknet).Lookup("rollup_pendingTransactions")
		if err != nil || r.Family != methods.FamilyStarknet {
			t.Fatalf("rule %+v, err %v", r, err)
		}
		if _, err := methods.NewTable(methods.FamilyStarknet).Lookup("eth_chainId"); err == nil {
			t.Fatalf("eth_chainId served on the starknet family")
		}
	})
}

// TestFilterMethodsCostLikeGetLogs: a log filter's methods cost what
// eth_getLogs costs, so that a filter is not a cheaper way to the same logs.
func TestFilterMethodsCostLikeGetLogs(t *testing.T) {
	table := methods.NewTable(methods.FamilyEVM)
	getLogs, _ := table.Lookup("eth_getLogs")
	for _, m := range []string{"eth_newFilter", "eth_getFilterLogs", "eth_getFilterChanges"} {
		r, err := table.Lookup(m)
		if err != nil || r.Credits != getLogs.Credits {
			t.Errorf("%s costs %v (%v), eth_getLogs %d", m, r, err, getLogs.Credits)
		}
	}
}
