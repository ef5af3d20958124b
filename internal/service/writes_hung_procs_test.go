package service

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/testenv"
)

// hungWrites is how many transactions TestNoWriteStrandedOnAHungMember
// sends, hungAfter how many before the member hangs, hungFor how long it
// hangs.
const (
	hungWrites = 60
	hungAfter  = 10
	hungFor    = 10 * time.Second
)

// TestNoWriteStrandedOnAHungMember (issue 31, writes): two `nodegate node`
// dev chains behind one nodegate network (broadcast on, the default); 60
// transactions of one sender are sent through nodegate, one every 250 ms,
// and member b is hung (SIGSTOP: it accepts connections, answers nothing)
// for 10 s after the tenth. Every call is answered, and at the end every
// transaction is mined on both members: none stranded on b, neither one
// it never got nor one stuck behind a nonce gap (the pool sends b what it
// missed, in order, once it is back: upstream/resend.go).
func TestNoWriteStrandedOnAHungMember(t *testing.T) {
	a, b := startNode(t, "", "127.0.0.1:0"), startNode(t, "", "127.0.0.1:0")
	pk, err := crypto.HexToECDSA(strings.TrimPrefix(a.devKey(), "0x"))
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(pk.PublicKey)

	cfg := config.Defaults()
	cfg.Listen = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	key := strings.Repeat("ef", 16)
	cfg.APIKeys = []string{key}
	cfg.Plans[config.PlanTeam] = config.Plan{Failover: true}
	// Each dev chain seals its own blocks (their hashes differ): no cache,
	// so that no member is judged by its finalized block against the
	// other's chain (docs/pools.md) — this test is about writes.
	noCache := false
	cfg.Networks = []config.Network{{
		Name: "mainnet", Family: "evm",
		Upstreams: []config.Upstream{{Name: "a", URL: a.url()}, {Name: "b", URL: b.url()}},
		Pool:      config.Pool{AttemptTimeout: 2 * time.Second, HeadInterval: 100 * time.Millisecond, ProbeInterval: 50 * time.Millisecond, RetryBudget: 5 * time.Second},
		Cache:     config.Cache{Enabled: &noCache},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	svc, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(context.Background())
	url := svc.URL() + "/v3/" + key

	to := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	failed := 0
	for nonce := range uint64(hungWrites) {
		if nonce == hungAfter {
			b.signal(syscall.SIGSTOP)
			time.AfterFunc(hungFor, func() { b.signal(syscall.SIGCONT) })
		}
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1337), Nonce: nonce,
			GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 21000, To: &to, Value: big.NewInt(1)})
		signed, err := types.SignTx(tx, types.LatestSignerForChainID(tx.ChainId()), pk)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := signed.MarshalBinary()
		if _, err := nodeResult(url, "eth_sendRawTransaction", fmt.Sprintf(`["%s"]`, hexutil.Encode(raw))); err != nil {
			failed++
			t.Logf("transaction %d through nodegate: %v", nonce, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if failed > 0 {
		t.Errorf("%d of %d transactions failed through nodegate", failed, hungWrites)
	}
	// Every member mines every transaction: its sender's nonce reaches
	// hungWrites. A transaction b never got, or one behind a gap, keeps it
	// below for good.
	count := func(n *nodeProc, tag string) uint64 {
		res, err := nodeResult(n.url(), "eth_getTransactionCount", fmt.Sprintf(`["%s","%s"]`, from.Hex(), tag))
		var count hexutil.Uint64
		if err != nil || json.Unmarshal(res, &count) != nil {
			return 0
		}
		return uint64(count)
	}
	mined := func(n *nodeProc) uint64 { return count(n, "latest") }
	defer func() {
		if t.Failed() {
			for name, n := range map[string]*nodeProc{"a": a, "b": b} {
				t.Logf("member %s: %d of %d transactions mined, %d stranded (its pool's next nonce %d)",
					name, mined(n), hungWrites, hungWrites-mined(n), count(n, "pending"))
			}
		}
	}()
	for name, n := range map[string]*nodeProc{"a": a, "b": b} {
		testenv.WaitFor(t, time.Minute, fmt.Sprintf("member %s to mine all %d transactions", name, hungWrites), func() bool {
			return mined(n) == hungWrites
		})
		t.Logf("member %s: %d of %d transactions mined, %d stranded", name, mined(n), hungWrites, hungWrites-mined(n))
	}
}
