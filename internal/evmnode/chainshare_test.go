package evmnode

import (
	"context"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/jsonrpc"
)

// caller is an admission.Caller of a fixed account.
type caller string

func (c caller) Account() string { return string(c) }

// TestChainShareIsPerAccount: with a share of 20 KiB per account, account
// a's batch of 60 KB transactions is refused at its share (naming
// node.max_chain_bytes_per_account) while account b's transfer, sent
// next, is taken; a write without a caller has no share.
func TestChainShareIsPerAccount(t *testing.T) {
	ctx := t.Context()
	n, err := Start(ctx, Config{MaxChainBytes: 1 << 20, MaxChainBytesPerAccount: 20 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	accs := DevAccounts(3)
	send := func(ctx context.Context, body []byte) string {
		t.Helper()
		out, err := n.Do(ctx, body)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	batch := []byte{'['}
	for nonce := range uint64(2) {
		if nonce > 0 {
			batch = append(batch, ',')
		}
		batch = jsonrpc.AppendRequest(batch, nonce, "eth_sendRawTransaction", rawParam(t, accs[0], nonce, 10_000))
	}
	batch = append(batch, ']')
	out := send(admission.WithCaller(ctx, caller("a")), batch)
	if strings.Count(out, `"result"`) != 1 || !strings.Contains(out, "node.max_chain_bytes_per_account") {
		t.Fatalf("account a's two writes of 12 KiB each against a 20 KiB share: %s", out)
	}
	out = send(admission.WithCaller(ctx, caller("b")), jsonrpc.AppendRequest(nil, 1, "eth_sendRawTransaction", rawParam(t, accs[1], 0, 0)))
	if !strings.Contains(out, `"result"`) {
		t.Fatalf("account b's transfer after a used its share: %s", out)
	}
	for nonce := range uint64(3) {
		out = send(ctx, jsonrpc.AppendRequest(nil, 1, "eth_sendRawTransaction", rawParam(t, accs[2], nonce, 10_000)))
		if !strings.Contains(out, `"result"`) {
			t.Fatalf("write %d without a caller: %s", nonce, out)
		}
	}
}

// rawParam is eth_sendRawTransaction's params: a transaction from acc of
// size zero bytes of calldata with just the gas it needs.
func rawParam(t *testing.T, acc Account, nonce uint64, size int) []byte {
	t.Helper()
	id := big.NewInt(1337)
	tx, err := types.SignNewTx(acc.Key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e11),
		Gas: 21000 + 10*uint64(size), To: &common.Address{0x42}, Data: make([]byte, size),
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`["0x` + hex.EncodeToString(b) + `"]`)
}

// TestWriteCharge: what a write is charged, by what it carries.
func TestWriteCharge(t *testing.T) {
	acc := DevAccounts(1)[0]
	signed := func(gas uint64, data int) []byte {
		tx, err := types.SignNewTx(acc.Key, types.LatestSignerForChainID(big.NewInt(1337)), &types.DynamicFeeTx{
			ChainID: big.NewInt(1337), Gas: gas, To: &common.Address{1}, Data: make([]byte, data), GasFeeCap: big.NewInt(1)})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := tx.MarshalBinary()
		return []byte(hex.EncodeToString(b))
	}
	transfer := signed(txGas, 0)
	for _, tc := range []struct {
		name string
		raw  []byte
		want int64
	}{
		{"transfer", transfer, txBytes(int64(len(transfer) / 2))},
		{"gas beyond intrinsic", signed(txGas+8000, 0), txBytes(int64(len(transfer)/2)) + 2000},
		{"calldata gas writes no state", signed(txGas+40*100, 100), txBytes(int64(len(signed(txGas+40*100, 100)) / 2))},
		{"not hex", []byte("zz"), txBytes(1)},
		{"not a transaction", []byte("00ff"), txBytes(2)},
		{"empty", nil, txBytes(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := writeCharge(tc.raw); got != tc.want {
				t.Fatalf("writeCharge = %d, want %d", got, tc.want)
			}
		})
	}
}

// FuzzWriteCharge: any parameter is charged at least its bytes, and never panics.
func FuzzWriteCharge(f *testing.F) {
	f.Add([]byte("02f86b"))
	f.Add([]byte("0"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if c := writeCharge(raw); c < txBytes(int64(len(raw)/2)) {
			t.Fatalf("charge %d below the bytes of %d hex digits", c, len(raw))
		}
	})
}
