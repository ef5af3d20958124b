package service

import (
	"context"
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// TestRawTransactionCheckedBeforeSending: a signed transaction that is
// not one (bytes that are not RLP), one larger than go-ethereum's pool
// takes, or one signed for another chain is answered as go-ethereum
// answers it (-32000 with its message) without being sent to any member.
// Before, every such blob went to every member.
func TestRawTransactionCheckedBeforeSending(t *testing.T) {
	key := strings.Repeat("d4", 16)
	cfg := config.Ephemeral(t.TempDir())
	cfg.APIKeys = []string{key}
	cfg.Plans[config.PlanTeam] = config.Plan{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())
	gw := svc.URL() + "/v3/" + key

	signer, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0xaa")
	otherChain, err := types.SignNewTx(signer, types.LatestSignerForChainID(big.NewInt(1)),
		&types.DynamicFeeTx{ChainID: big.NewInt(1), Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e9), Gas: 21000, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	otherBytes, _ := otherChain.MarshalBinary()
	oversized := &types.DynamicFeeTx{ChainID: big.NewInt(1337), Gas: 21000, To: &to, Data: make([]byte, 130*1024)}
	bigTx, _ := types.SignNewTx(signer, types.LatestSignerForChainID(oversized.ChainID), oversized)
	bigBytes, _ := bigTx.MarshalBinary()

	tests := []struct {
		name string
		raw  []byte
	}{
		{"not rlp", []byte(strings.Repeat("\xff", 5000))},
		{"typed but empty", []byte{0x02}},
		{"another chain", otherBytes},
		{"oversized", bigBytes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := testenv.RPCBody("eth_sendRawTransaction", `["`+hexutil.Encode(tc.raw)+`"]`)
			before := attemptsOn(t, svc, "default")
			status, got := testenv.PostJSON(t, gw, body)
			var a struct {
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(got, &a); err != nil || a.Error == nil || a.Error.Code != -32000 || status != 200 {
				t.Fatalf("%d %.300s", status, got)
			}
			want, err := svc.Node.Do(ctx, []byte(body)) // go-ethereum's own answer
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) {
				t.Fatalf("nodegate: %.300s\ngo-ethereum: %.300s", got, want)
			}
			if n := attemptsOn(t, svc, "default") - before; n != 0 {
				t.Fatalf("sent to the members %d times", n)
			}
		})
	}
}
