package service

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/starknet/starknettest"
	"github.com/nodegate/nodegate/internal/testenv"
)

// procRSSMB is a process's resident memory in MB.
func procRSSMB(t *testing.T, pid int) float64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// flood runs send from clients goroutines until n calls were sent, within
// passed or send says to stop; it returns how many calls were sent and
// how many send reported as accepted.
func flood(clients, n int, within time.Duration, send func(i int) (accepted, more bool)) (sent, accepted int64) {
	var next, ok atomic.Int64
	var stop atomic.Bool
	end := time.Now().Add(within)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for time.Until(end) > 0 && !stop.Load() {
				i := int(next.Add(1))
				if i > n {
					return
				}
				accepted, more := send(i)
				if accepted {
					ok.Add(1)
				}
				if !more {
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return min(next.Load(), int64(n)), ok.Load()
}

// TestDevnetFloodMemory is issue 19's devnet flood against a `nodegate
// serve` process: INVOKE v3 transactions of about 0.8 MB from fresh
// senders, from one key. The devnet keeps at most its byte budgets
// (here keep_bytes 8 MiB, max_pending_bytes 2 MiB) of them: the first
// transactions are gone once later blocks took their place, and the
// process's RSS is logged before and after.
func TestDevnetFloodMemory(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, `
networks:
  - name: default
    upstreams: [{ name: embedded, url: embedded }]
  - name: starknet
    family: starknet
    hosts: [starknet.localhost]
    upstreams: [{ name: embedded, url: embedded }]
    starknet:
      devnet: { block_time: 200ms, keep_bytes: 8388608, max_pending_bytes: 2097152 }
`)
	p := startServe(t, nil, "--config", cfg, "--listen", "127.0.0.1:0", "--admin-listen", "", "--data-dir", dir)
	url := p.url + "/v3/" + p.key
	before := procRSSMB(t, p.cmd.Process.Pid)
	client := &http.Client{Timeout: time.Minute}
	hashes := make([]string, 41)
	sent, accepted := flood(2, 40, 90*time.Second, func(i int) (bool, bool) {
		var (
			status int
			out    []byte
			err    error
		)
		// A full pending pool refuses until the next block (200 ms) takes
		// its transactions, and the key's share of the devnet's hashing
		// (devnet_hashshare.go) until it refills (about 1.5 s a
		// transaction): the flood sends the same one again then, as a
		// client would, so that all 40 pass through the budgets however
		// fast they are sent.
		for try := 0; try < 100; try++ {
			status, out, err = testenv.Post(context.Background(), client, url, testenv.RPCBody("starknet_addInvokeTransaction", "["+starknettest.BigV3(i)+"]"), "Host", "starknet.localhost")
			if err != nil || !strings.Contains(string(out), "pending pool is full") && !strings.Contains(string(out), "share of hashing") {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		var a struct {
			Result struct {
				Hash string `json:"transaction_hash"`
			}
		}
		if err != nil || status != http.StatusOK || json.Unmarshal(out, &a) != nil || a.Result.Hash == "" {
			return false, true
		}
		hashes[i] = a.Result.Hash
		return true, true
	})
	after := procRSSMB(t, p.cmd.Process.Pid)
	kept := 0
	for _, h := range hashes {
		if h == "" {
			continue
		}
		_, out := testenv.PostJSON(t, url, testenv.RPCBody("starknet_getTransactionByHash", `["`+h+`"]`), "Host", "starknet.localhost")
		if strings.Contains(string(out), `"result"`) {
			kept++
		}
	}
	t.Logf("devnet flood: %d transactions sent (%.0f MB), %d accepted, %d still kept; RSS %.0f MB before, %.0f MB after",
		sent, float64(sent)*0.83, accepted, kept, before, after)
	if accepted < 20 {
		t.Fatalf("only %d of %d transactions accepted: the flood did not happen", accepted, sent)
	}
	// 10 MiB of budgets hold at most 12 such transactions, with the
	// newest block always kept: a few more.
	if kept > 16 {
		t.Fatalf("%d transactions (%.0f MB) still kept, over the byte budgets", kept, float64(kept)*0.83)
	}
}

// TestDevChainFloodMemory is issue 19's dev-chain flood against a
// `nodegate serve` process: two loops of eth_sendRawTransaction with
// 120 KB of calldata each, from one key. Past node.max_chain_bytes (here
// 16 MiB, without a share per account) every transaction answers -32005 while reads go on; the
// process's RSS is logged before and after.
func TestDevChainFloodMemory(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "no_starknet: true\nnode: { max_chain_bytes: 16777216, max_chain_bytes_per_account: -1 }\n")
	p := startServe(t, nil, "--config", cfg, "--listen", "127.0.0.1:0", "--admin-listen", "", "--data-dir", dir)
	url := p.url + "/v3/" + p.key
	before := procRSSMB(t, p.cmd.Process.Pid)
	client := &http.Client{Timeout: time.Minute}
	accounts := evmnode.DevAccounts(2)
	var (
		nonces [2]uint64
		locks  [2]sync.Mutex // one transaction of an account at a time, in nonce order
		full   atomic.Int64
		other  sync.Map
	)
	sent, accepted := flood(2, 1000, 60*time.Second, func(i int) (bool, bool) {
		from := i % 2
		locks[from].Lock()
		defer locks[from].Unlock()
		raw := signedDataTx(t, accounts[from], nonces[from], 120_000)
		_, out, err := testenv.Post(context.Background(), client, url, testenv.RPCBody("eth_sendRawTransaction", `["`+raw+`"]`))
		switch {
		case err != nil:
			other.Store(err.Error(), true)
		case strings.Contains(string(out), `"result"`):
			nonces[from]++
			return true, true
		case strings.Contains(string(out), `"code":-32005`) && strings.Contains(string(out), "chain is full"):
			return false, full.Add(1) < 4 // refused for good: the flood is over
		default:
			other.Store(string(out), true)
		}
		return false, true
	})
	after := procRSSMB(t, p.cmd.Process.Pid)
	other.Range(func(k, _ any) bool { t.Logf("flood got %.200s", k); return true })
	if _, out := testenv.PostJSON(t, url, testenv.RPCBody("eth_blockNumber", "")); !strings.Contains(string(out), `"result"`) {
		t.Fatalf("a read on a full chain: %s", out)
	}
	t.Logf("dev-chain flood: %d transactions sent, %d accepted (%.0f MB of calldata), %d refused as the chain is full; RSS %.0f MB before, %.0f MB after",
		sent, accepted, float64(accepted)*0.12, full.Load(), before, after)
	// The budget counts each block once it is sealed: a few transactions
	// more may pass while the last ones are.
	if full.Load() == 0 || accepted*120_000 > 16<<20+4*120_000 {
		t.Fatalf("%d transactions of 120 KB accepted, %d refused: want refusals within the 16 MiB budget", accepted, full.Load())
	}
}

// signedDataTx is a signed transaction from acc on the dev chain (id 1337)
// carrying size bytes of calldata, hex-encoded.
func signedDataTx(t *testing.T, acc evmnode.Account, nonce uint64, size int) string {
	data := make([]byte, size)
	_, _ = rand.Read(data)
	id := big.NewInt(1337)
	tx, err := types.SignNewTx(acc.Key, types.LatestSignerForChainID(id), &types.DynamicFeeTx{
		ChainID: id, Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(1e11),
		Gas: 21000 + 40*uint64(size), To: &common.Address{0x42}, Data: data,
	})
	if err != nil {
		t.Error(err)
		return ""
	}
	b, _ := tx.MarshalBinary()
	return hexutil.Encode(b)
}
