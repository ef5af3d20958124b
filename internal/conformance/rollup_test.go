package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/servicetest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// rollupSteps are nodegate's conformance-style cases for the rollup network
// of the embedded default (the Starknet devnet at starknet.localhost), in
// order: they share the devnet's pending pool. The INVOKE v1 carries the
// fields of mainnet transaction 0x6c40…ab1 with a shorter calldata and the
// account's first nonce (0x0: a devnet starts every account there); the
// INVOKE v3 is the same account's next transaction. Both hashes for the
// devnet's chain id were checked against starknet.js 7.6.4 when written.
var rollupSteps = []struct {
	name, comment, request string
	specOnly               bool // the answer depends on the time (a block hash): schema only
}{
	{"01-empty", "nothing is pending on a new devnet", `{"jsonrpc":"2.0","id":1,"method":"rollup_pendingTransactions","params":[]}`, false},
	{"02-add-invoke-v1", "an INVOKE v1 is accepted and hashed", `{"jsonrpc":"2.0","id":2,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x1","max_fee":"0x1a9a4bdc14000","nonce":"0x0","signature":["0x5e817845ba6681fe39a14ac3b1749dbc98374ce9e4361cc7381bc82c1dedcf3","0x5439b1cb55171f22659fa3be441ce37be92f61167db9718c2ec43901350021"],"sender_address":"0x4f1cb86e5067045d8264cc542da0517b9afcc4219575a184a76265423e8a213","calldata":["0x1","0x76503062d78f4481be03c9145022d6a4a71ec0719aa07756f79a2384dc7ef16","0x2f0b3c5710379609eb5495f1ecd348cb28167711b73609fe565a72734550354","0x0","0x1","0x1","0x1a869e20ba"]}]}`, false},
	{"02b-add-invoke-v3", "an INVOKE v3 with the account's next nonce is accepted and hashed", `{"jsonrpc":"2.0","id":22,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x3","nonce":"0x1","signature":["0x5e817845ba6681fe39a14ac3b1749dbc98374ce9e4361cc7381bc82c1dedcf3","0x5439b1cb55171f22659fa3be441ce37be92f61167db9718c2ec43901350021"],"sender_address":"0x4f1cb86e5067045d8264cc542da0517b9afcc4219575a184a76265423e8a213","calldata":["0x1","0x76503062d78f4481be03c9145022d6a4a71ec0719aa07756f79a2384dc7ef16","0x2f0b3c5710379609eb5495f1ecd348cb28167711b73609fe565a72734550354","0x0","0x1","0x1","0x1a869e20ba"],"resource_bounds":{"l1_gas":{"max_amount":"0x0","max_price_per_unit":"0x5af3107a4000"},"l2_gas":{"max_amount":"0xc92ca0","max_price_per_unit":"0x2540be400"},"l1_data_gas":{"max_amount":"0x450","max_price_per_unit":"0x3b9aca00"}},"tip":"0x0","paymaster_data":[],"account_deployment_data":[],"nonce_data_availability_mode":"L1","fee_data_availability_mode":"L1"}]}`, false},
	{"02c-bad-nonce", "a nonce that is not the account's next is refused; nothing stored", `{"jsonrpc":"2.0","id":23,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x1","max_fee":"0x1","nonce":"0x5","signature":[],"sender_address":"0x4f1cb86e5067045d8264cc542da0517b9afcc4219575a184a76265423e8a213","calldata":[]}]}`, false},
	{"03-pending-spec-objects", "docs/spec.md's pending transaction objects", `{"jsonrpc":"2.0","id":3,"method":"rollup_pendingTransactions","params":[]}`, false},
	{"04-pending-no-params", "params may be omitted", `{"jsonrpc":"2.0","id":4,"method":"rollup_pendingTransactions"}`, false},
	{"05-pending-starknet-name", "Starknet's own name gives the node's objects", `{"jsonrpc":"2.0","id":5,"method":"starknet_pendingTransactions","params":[]}`, false},
	{"06-bad-params-not-empty", "the method takes no params", `{"jsonrpc":"2.0","id":6,"method":"rollup_pendingTransactions","params":["pending"]}`, false},
	{"07-bad-felt-over-prime", "felts are validated, never reduced; nothing is stored", `{"jsonrpc":"2.0","id":7,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x0","sender_address":"0x800000000000011000000000000000000000000000000000000000000000001","calldata":[]}]}`, false},
	{"08-evm-method-refused", "an EVM method on the rollup network", `{"jsonrpc":"2.0","id":8,"method":"eth_blockNumber","params":[]}`, false},
	{"09-create-block", "the devnet seals what is pending", `{"jsonrpc":"2.0","id":9,"method":"devnet_createBlock","params":[]}`, true},
	{"10-empty-again", "nothing is pending after the block", `{"jsonrpc":"2.0","id":10,"method":"rollup_pendingTransactions","params":[]}`, false},
}

var rollupDir = filepath.Join("testdata", "rollup")

// rollupGateway starts the embedded default and returns the URL and Host of
// its rollup network.
func rollupGateway(t *testing.T) (url, host string) {
	t.Helper()
	cfg := servicetest.Config(t)
	// The default networks, with blocks made only by devnet_createBlock:
	// the steps read the pending pool before and after one.
	cfg.Networks = cfg.EffectiveNetworks()
	cfg.Networks[1].Starknet.Devnet.BlockTime = 0
	s := servicetest.Start(t, cfg)
	return s.URL() + "/v3/" + s.GeneratedKey, config.StarknetLocalHost
}

func postHost(t *testing.T, url, host, body string) []byte {
	t.Helper()
	_, out := testenv.PostJSON(t, url, body, "Host", host)
	return bytes.TrimSpace(out)
}

// TestRollupFixtures replays the rollup fixtures through the gateway, in
// order, compared as hive compares; with -update it writes them from the
// answers (to be read by a person before committing).
func TestRollupFixtures(t *testing.T) {
	url, host := rollupGateway(t)
	if *update {
		for _, st := range rollupSteps {
			text := fmt.Sprintf("// %s\n", st.comment)
			if st.specOnly {
				text += "// speconly\n"
			}
			text += fmt.Sprintf(">> %s\n<< %s\n", st.request, postHost(t, url, host, st.request))
			if err := os.WriteFile(filepath.Join(rollupDir, st.name+".io"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	files, _ := filepath.Glob(filepath.Join(rollupDir, "*.io"))
	sort.Strings(files)
	if len(files) != len(rollupSteps) {
		t.Fatalf("%d rollup fixtures, want %d", len(files), len(rollupSteps))
	}
	for _, path := range files {
		f, err := ReadFixture(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range f.Exchanges {
			got := postHost(t, url, host, ex.Request)
			if err := Compare(got, []byte(ex.Expected), f.SpecOnly); err != nil {
				t.Errorf("%s: %v", filepath.Base(path), err)
			}
			if strings.Contains(ex.Request, `"rollup_pendingTransactions"`) {
				checkPendingSchema(t, filepath.Base(path), got)
			}
		}
	}
}

// specPendingFields are docs/spec.md's "Pending transaction object" fields.
var specPendingFields = []string{"type", "transaction_hash", "max_fee", "version", "signature", "nonce", "contract_address", "entry_point_selector", "calldata"}

// checkPendingSchema: every object carries docs/spec.md's fields with their types.
func checkPendingSchema(t *testing.T, name string, raw []byte) {
	t.Helper()
	var resp struct {
		Result []map[string]json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Error != nil {
		return // an error answer is compared above
	}
	for i, tx := range resp.Result {
		for _, f := range specPendingFields {
			v, ok := tx[f]
			if !ok {
				t.Errorf("%s: transaction %d has no %s", name, i, f)
				continue
			}
			isList := f == "signature" || f == "calldata"
			if isList != (len(v) > 0 && v[0] == '[') || (!isList && (len(v) < 3 || v[0] != '"')) {
				t.Errorf("%s: transaction %d: %s has the wrong type: %s", name, i, f, v)
			}
		}
	}
}
