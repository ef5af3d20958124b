package limits_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/nodegate/nodegate/internal/evmnode"
)

// Contracts, hand-assembled.
var (
	// emitterCode: calldata (n, topic) emits n LOG1s with that topic, each
	// with the counter as its 32-byte data.
	emitterCode = mustHex("600035" + "5b" + "80" + "15" + "601c" + "57" + "80" + "6000" + "52" + "602035" + "6020" + "6000" + "a1" + "6001" + "90" + "03" + "6003" + "56" + "5b" + "00")
	// gasCode returns gasleft() as a 32-byte word; when the calldata word
	// (gas needed) is above it, it loops until out of gas, which is what
	// eth_estimateGas reports with its allowance.
	gasCode = mustHex("5a" + "80" + "6000" + "35" + "11" + "6011" + "57" + "6000" + "52" + "6020" + "6000" + "f3" + "5b" + "6011" + "56")
)

// Topics of the test chain.
var (
	topicDense  = common.HexToHash("0xd1") // 12,500 logs in three consecutive blocks near the start
	topicSpread = common.HexToHash("0xd2") // 10,000 logs in ten blocks spread over the chain
	topicLast   = common.HexToHash("0xd3") // 5 logs in the head block
)

// Shape of the test chain.
const (
	denseA, denseB, denseC = 6000, 4000, 2500
	spreadTxs, spreadLogs  = 10, 1000
	spreadGap              = 300 // empty blocks between spread blocks
	tailBlocks             = 500 // empty blocks after the last spread block
)

// chain is the test chain, generated once and imported by an embedded node
// (which executes every block: the receipts and logs are the node's own).
type chain struct {
	node    *evmnode.Node
	url     string // the node's own HTTP endpoint
	emitter common.Address
	gasAddr common.Address
	// Blocks holding the dense logs, the spread logs, the safe and
	// finalized blocks, and the head.
	blockA, blockB, blockC uint64
	spread                 []uint64
	safe, finalized        uint64
	head                   uint64
	gasLimit               uint64
}

var (
	chainOnce sync.Once
	theChain  *chain
	chainErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if theChain != nil && theChain.node != nil {
		_ = theChain.node.Close()
	}
	os.Exit(code)
}

// testChain builds the chain once per test binary.
func testChain(t testing.TB) *chain {
	t.Helper()
	chainOnce.Do(func() {
		start := time.Now()
		theChain, chainErr = buildChain()
		if chainErr == nil {
			fmt.Fprintf(os.Stderr, "test chain: %d blocks built and imported in %s\n", theChain.head, time.Since(start).Round(time.Millisecond))
		}
	})
	if chainErr != nil {
		t.Fatalf("build test chain: %v", chainErr)
	}
	return theChain
}

var testKey, _ = crypto.ToECDSA(crypto.Keccak256([]byte("nodegate limits test account")))

func buildChain() (*chain, error) {
	dir, err := os.MkdirTemp("", "nodegate-limits-chain-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	c, err := generate(dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	n, err := evmnode.Start(ctx, evmnode.Config{ChainDir: dir, HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		return nil, err
	}
	c.node, c.url = n, n.HTTPEndpoint()
	if err := c.waitLogIndex(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// generate writes genesis.json, chain.rlp and headfcu.json of the test
// chain into dir.
func generate(dir string) (*chain, error) {
	sender := crypto.PubkeyToAddress(testKey.PublicKey)
	// 8M gas per block: small enough that a cap of one block's gas stays under
	// Osaka's 2^24 per-transaction gas, which bounds eth_estimateGas too.
	genesis := core.DeveloperGenesisBlock(8_000_000, nil)
	genesis.Alloc[sender] = types.Account{Balance: new(big.Int).Mul(big.NewInt(1e6), big.NewInt(1e18))}
	c := &chain{emitter: crypto.CreateAddress(sender, 0), gasAddr: crypto.CreateAddress(sender, 1), gasLimit: genesis.GasLimit}
	signer := types.LatestSigner(genesis.Config)
	// Block numbers: 1 deploys, 2-4 dense, then the spread blocks, then the tail.
	c.blockA, c.blockB, c.blockC = 2, 3, 4
	plan := map[uint64]struct {
		n     int
		topic common.Hash
	}{2: {denseA, topicDense}, 3: {denseB, topicDense}, 4: {denseC, topicDense}}
	b := uint64(4)
	for range spreadTxs {
		b += spreadGap + 1
		c.spread = append(c.spread, b)
		plan[b] = struct {
			n     int
			topic common.Hash
		}{spreadLogs, topicSpread}
	}
	c.head = b + tailBlocks + 1
	plan[c.head] = struct {
		n     int
		topic common.Hash
	}{5, topicLast}
	c.finalized, c.safe = c.blockB, c.spread[4]

	var txErr error
	tx := func(g *core.BlockGen, to *common.Address, data []byte, gas uint64) {
		t, err := types.SignNewTx(testKey, signer, &types.DynamicFeeTx{
			ChainID: genesis.Config.ChainID, Nonce: g.TxNonce(sender), GasTipCap: big.NewInt(1),
			GasFeeCap: new(big.Int).Add(new(big.Int).Mul(g.BaseFee(), big.NewInt(2)), big.NewInt(1)), Gas: gas, To: to, Data: data,
		})
		if err != nil {
			txErr = err
			return
		}
		g.AddTx(t)
	}
	_, blocks, _ := core.GenerateChainWithGenesis(genesis, beacon.New(ethash.NewFaker()), int(c.head), func(i int, g *core.BlockGen) {
		num := uint64(i + 1)
		if num == 1 {
			tx(g, nil, initCode(emitterCode), 200_000)
			tx(g, nil, initCode(gasCode), 200_000)
			return
		}
		if p, ok := plan[num]; ok {
			data := append(common.BigToHash(big.NewInt(int64(p.n))).Bytes(), p.topic.Bytes()...)
			tx(g, &c.emitter, data, uint64(p.n)*1200+60_000)
		}
	})
	if txErr != nil {
		return nil, txErr
	}
	return c, writeChainDir(dir, genesis, blocks, blocks[c.safe-1].Hash(), blocks[c.finalized-1].Hash())
}

func writeChainDir(dir string, genesis *core.Genesis, blocks []*types.Block, safe, finalized common.Hash) error {
	g, err := json.Marshal(genesis)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "genesis.json"), g, 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		return err
	}
	for _, b := range blocks {
		if err := rlp.Encode(f, b); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	fcu := fmt.Sprintf(`{"params":[{"headBlockHash":"%s","safeBlockHash":"%s","finalizedBlockHash":"%s"}]}`, blocks[len(blocks)-1].Hash(), safe, finalized)
	return os.WriteFile(filepath.Join(dir, "headfcu.json"), []byte(fcu), 0o644)
}

// initCode deploys runtime (shorter than 256 bytes): copy it to memory, return it.
func initCode(runtime []byte) []byte {
	return append(mustHex(fmt.Sprintf("60%02x80600b6000396000f3", len(runtime))), runtime...)
}

// waitLogIndex waits until the node answers a log query over the whole
// chain with every emitted log, so that tests do not race its log indexer.
func (c *chain) waitLogIndex(ctx context.Context) error {
	q := fmt.Sprintf(`[{"fromBlock":"0x0","toBlock":"latest","topics":["%s"]}]`, topicLast)
	for {
		res, err := c.rpc(ctx, "eth_getLogs", q)
		if err == nil && strings.Count(string(res), `"logIndex"`) == 5 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("log index: %w", errors.Join(err, ctx.Err()))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// rpc calls the node in process and returns the result.
func (c *chain) rpc(ctx context.Context, method, params string) (json.RawMessage, error) {
	out, err := c.node.Do(ctx, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)))
	if err != nil {
		return nil, err
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, resp.Error)
	}
	return resp.Result, nil
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		panic(err)
	}
	return b
}

func TestChainBuilds(t *testing.T) {
	c := testChain(t)
	t.Logf("A=%d B=%d C=%d spread=%v head=%d url=%s", c.blockA, c.blockB, c.blockC, c.spread, c.head, c.url)
}
