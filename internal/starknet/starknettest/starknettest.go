package starknettest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/stark-curve/fp"
)

// testdata is internal/starknet/testdata, wherever the tests run from.
func testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata")
}

// ValidV3 is a well-formed INVOKE v3 as starknet.js 7 sends it (RPC 0.8).
const ValidV3 = `{"type":"INVOKE","version":"0x3","sender_address":"0x1","calldata":["0x1","0x2"],"signature":["0x1","0x2"],"nonce":"0x0",` +
	`"resource_bounds":{"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x5af3107a4000"},"l2_gas":{"max_amount":"0x7a120","max_price_per_unit":"0x2540be400"},"l1_data_gas":{"max_amount":"0x80","max_price_per_unit":"0x3b9aca00"}},` +
	`"tip":"0x0","paymaster_data":[],"account_deployment_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"}`

// BigV3 is ValidV3 from sender with 4,096 felts each in calldata,
// paymaster_data and account_deployment_data: about 0.8 MB, the most one
// transaction may carry (issue 19's devnet flood).
func BigV3(sender int) string {
	felt := `"0x` + strings.Repeat("7", 62) + `"`
	list := "[" + strings.Repeat(felt+",", 4095) + felt + "]"
	tx := strings.Replace(ValidV3, `"sender_address":"0x1"`, fmt.Sprintf(`"sender_address":"0x%x"`, sender), 1)
	tx = strings.Replace(tx, `"calldata":["0x1","0x2"]`, `"calldata":`+list, 1)
	tx = strings.Replace(tx, `"paymaster_data":[]`, `"paymaster_data":`+list, 1)
	return strings.Replace(tx, `"account_deployment_data":[]`, `"account_deployment_data":`+list, 1)
}

// BigV1 is ValidV1 from sender with 4,096 calldata felts: the costliest
// transaction to hash (Pedersen, about 0.7 s of CPU), about 270 KB.
func BigV1(sender int) string {
	felt := `"0x` + strings.Repeat("7", 62) + `"`
	list := "[" + strings.Repeat(felt+",", 4095) + felt + "]"
	tx := strings.Replace(ValidV1, `"sender_address":"0x123"`, fmt.Sprintf(`"sender_address":"0x%x"`, sender), 1)
	return strings.Replace(tx, `"calldata":["0x1","0x2"]`, `"calldata":`+list, 1)
}

// ValidV1 is a well-formed INVOKE v1.
const ValidV1 = `{"type":"INVOKE","version":"0x1","max_fee":"0x10","signature":["0x1","0x2"],"nonce":"0x0","sender_address":"0x123","calldata":["0x1","0x2"]}`

// PHex is the field prime written out, to build inputs at and around it.
var PHex = "0x" + fp.Modulus().Text(16)

// InvokeVector is one real INVOKE transaction and its hash.
type InvokeVector struct {
	Name    string          `json:"name"`
	Source  string          `json:"source"`
	ChainID string          `json:"chain_id"`
	Hash    string          `json:"transaction_hash"`
	Tx      json.RawMessage `json:"transaction"`
}

// LoadInvokeVectors reads testdata/invoke_vectors.json.
func LoadInvokeVectors(t testing.TB) []InvokeVector {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testdata(), "invoke_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []InvokeVector
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	if len(vs) < 5 {
		t.Fatalf("only %d vectors", len(vs))
	}
	return vs
}

// SubmitMainnetVectors sends the mainnet vectors through add, which
// returns the answer's result. A devnet starts every account at nonce 0, so
// each v1 is preceded by filler INVOKE v1s from its sender with the nonces
// before its own. It checks that every real transaction comes back with
// its real hash, and returns every hash sent, in order, and the real ones.
func SubmitMainnetVectors(t *testing.T, add func(tx string) string) (all, real []string) {
	t.Helper()
	for _, v := range LoadInvokeVectors(t) {
		if v.ChainID != "SN_MAIN" {
			continue
		}
		var fields struct {
			Version string `json:"version"`
			Nonce   string `json:"nonce"`
			Sender  string `json:"sender_address"`
		}
		if err := json.Unmarshal(v.Tx, &fields); err != nil {
			t.Fatal(err)
		}
		if fields.Version == "0x1" {
			nonce, _ := strconv.ParseUint(strings.TrimPrefix(fields.Nonce, "0x"), 16, 64)
			for i := range nonce {
				filler := fmt.Sprintf(`{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x%x","sender_address":%q,"calldata":[]}`, i, fields.Sender)
				all = append(all, HashOf(t, add(filler)))
			}
		}
		got := HashOf(t, add(string(v.Tx)))
		if got != v.Hash {
			t.Fatalf("%s: hash %s, want %s", v.Name, got, v.Hash)
		}
		all, real = append(all, got), append(real, got)
	}
	return all, real
}

// HashOf is the transaction_hash of an addInvokeTransaction result.
func HashOf(t *testing.T, result string) string {
	t.Helper()
	var r struct {
		Hash string `json:"transaction_hash"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil || r.Hash == "" {
		t.Fatalf("answer %s: %v", result, err)
	}
	return r.Hash
}

// Unquote is the JSON string raw, failing the test when it is none.
func Unquote(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s is not a string: %v", raw, err)
	}
	return s
}
