package service

import (
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestChainShareKeepsOtherKeysWriting is issue 29's dev-chain fill at the
// user level: on the embedded default's dev chain with a small budget
// (node.max_chain_bytes 1 MiB, node.max_chain_bytes_per_account 256 KiB),
// key A sends transactions of 60 KB of calldata until it is refused; its
// refusal names its account's share, and key B's plain transfer is then
// still taken.
func TestChainShareKeepsOtherKeysWriting(t *testing.T) {
	keyA, keyB := fmt.Sprintf("%032x", 0xa), fmt.Sprintf("%032x", 0xb)
	cfg := testConfig(t)
	cfg.Node.ChainDir = "" // the dev chain
	cfg.Node.MaxChainBytes = 1 << 20
	cfg.Node.MaxChainBytesPerAccount = 256 << 10
	cfg.Plans["team"] = config.Plan{Failover: true}
	cfg.APIKeys = []string{keyA, keyB}
	s := start(t, cfg)
	accounts := evmnode.DevAccounts(2)

	var refusal string
	for nonce := uint64(0); refusal == "" && nonce < 40; nonce++ {
		status, out := testenv.PostJSON(t, s.URL()+"/v3/"+keyA,
			testenv.RPCBody("eth_sendRawTransaction", `["`+signedTx(t, accounts[0], nonce, 60_000)+`"]`))
		switch {
		case status != http.StatusOK:
			t.Fatalf("key A's transaction %d: HTTP %d %s", nonce, status, out)
		case strings.Contains(string(out), `"error"`):
			refusal = string(out)
		}
	}
	if !strings.Contains(refusal, `"code":-32005`) || !strings.Contains(refusal, "node.max_chain_bytes_per_account") {
		t.Fatalf("key A's last transaction: want -32005 naming node.max_chain_bytes_per_account, got %q", refusal)
	}
	status, out := testenv.PostJSON(t, s.URL()+"/v3/"+keyB,
		testenv.RPCBody("eth_sendRawTransaction", `["`+signedTx(t, accounts[1], 0, 0)+`"]`))
	if status != http.StatusOK || !strings.Contains(string(out), `"result"`) {
		t.Fatalf("key B's transfer once key A used its share: HTTP %d %s", status, out)
	}
}

// signedTx is a signed transaction from acc on the dev chain (id 1337)
// carrying size bytes of zero calldata, hex-encoded, with just the gas it needs.
func signedTx(t *testing.T, acc evmnode.Account, nonce uint64, size int) string {
	t.Helper()
	data := make([]byte, size)
	id := big.NewInt(1337)
	tx, err := types.SignNewTx(acc.Key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e11),
		Gas: 21000 + 4*uint64(size) + 10*uint64(size), To: &common.Address{0x42}, Data: data, Value: big.NewInt(1),
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return hexutil.Encode(b)
}
