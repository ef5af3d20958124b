package service_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/service"
)

// TestEthclientWebSocket drives nodegate with go-ethereum's own client over
// ws:// and wss:// (self-signed): reads, a batch, newHeads and logs.
func TestEthclientWebSocket(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{{"ws", false}, {"wss self-signed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t, func(c *config.Config) { c.TLS.SelfSigned = tc.tls })
			var ec *ethclient.Client
			var rc *rpc.Client
			if tc.tls {
				ec, rc = dialEth(t, wsEndpoint(s), trust(t, s))
			} else {
				ec, rc = dialEth(t, wsEndpoint(s), nil)
			}
			checkReads(t, ec, s)
			checkBatch(t, rc)
			checkNewHeads(t, ec, s)
			checkLogs(t, ec, s)
		})
	}
}

func checkReads(t *testing.T, ec *ethclient.Client, s *service.Service) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := ec.ChainID(ctx)
	if err != nil || id.Uint64() != s.Node.ChainID() {
		t.Fatalf("chain id: %v %v", id, err)
	}
	bal, err := ec.BalanceAt(ctx, s.Node.Accounts()[0].Address, nil)
	if err != nil || bal.Sign() <= 0 {
		t.Fatalf("balance: %v %v", bal, err)
	}
	genesis, err := ec.HeaderByNumber(ctx, big.NewInt(0))
	if err != nil || genesis.Hash() != s.Node.Ethereum().BlockChain().Genesis().Hash() {
		t.Fatalf("genesis header: %v", err)
	}
	if _, err := ec.HeaderByNumber(ctx, big.NewInt(1<<40)); err != ethereum.NotFound {
		t.Fatalf("missing block: want NotFound, got %v", err)
	}
}

func checkBatch(t *testing.T, rc *rpc.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var chain, num hexutil.Uint64
	var bad any
	batch := []rpc.BatchElem{
		{Method: "eth_chainId", Result: &chain},
		{Method: "eth_blockNumber", Result: &num},
		{Method: "admin_peers", Result: &bad},
	}
	if err := rc.BatchCallContext(ctx, batch); err != nil {
		t.Fatalf("batch: %v", err)
	}
	if batch[0].Error != nil || uint64(chain) != 1337 || batch[1].Error != nil {
		t.Fatalf("batch answers: %+v", batch)
	}
	if e, ok := batch[2].Error.(rpc.Error); !ok || e.ErrorCode() != -32601 {
		t.Fatalf("refused method in a batch: want -32601, got %v", batch[2].Error)
	}
}

func checkNewHeads(t *testing.T, ec *ethclient.Client, s *service.Service) {
	heads := make(chan *types.Header, 16)
	sub, err := ec.SubscribeNewHead(context.Background(), heads)
	if err != nil {
		t.Fatalf("subscribe newHeads: %v", err)
	}
	defer sub.Unsubscribe()
	var want []common.Hash
	for range 3 {
		if err := s.Node.Commit(); err != nil {
			t.Fatal(err)
		}
		want = append(want, s.Node.Ethereum().BlockChain().CurrentBlock().Hash())
	}
	for i, h := range want {
		select {
		case got := <-heads:
			if got.Hash() != h {
				t.Fatalf("head %d: got %s (#%d), want %s", i, got.Hash(), got.Number, h)
			}
		case err := <-sub.Err():
			t.Fatalf("subscription ended: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatalf("head %d not received", i)
		}
	}
}

func checkLogs(t *testing.T, ec *ethclient.Client, s *service.Service) {
	topic := crypto.Keccak256Hash([]byte("nodegate test " + t.Name()))
	acc := s.Node.Accounts()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nonce, err := ec.PendingNonceAt(ctx, acc.Address)
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.CreateAddress(acc.Address, nonce)
	logs := make(chan types.Log, 4)
	sub, err := ec.SubscribeFilterLogs(context.Background(), ethereum.FilterQuery{Addresses: []common.Address{addr}, Topics: [][]common.Hash{{topic}}}, logs)
	if err != nil {
		t.Fatalf("subscribe logs: %v", err)
	}
	defer sub.Unsubscribe()
	if got := sendCreate(t, ec, s.Node, logEmitterInitCode(topic)); got != addr {
		t.Fatalf("created %s, want %s", got, addr)
	}
	// The embedded dev chain with block_time 0 does not seal on its own in
	// this version (see the report): seal the block here.
	if err := s.Node.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-logs:
		if l.Address != addr || len(l.Topics) != 1 || l.Topics[0] != topic || l.Removed {
			t.Fatalf("log: %+v", l)
		}
		if l.BlockNumber == 0 || l.BlockNumber > new(big.Int).SetUint64(s.Node.Ethereum().BlockChain().CurrentBlock().Number.Uint64()).Uint64() {
			t.Fatalf("log block %d", l.BlockNumber)
		}
	case err := <-sub.Err():
		t.Fatalf("subscription ended: %v", err)
	case <-time.After(10 * time.Second):
		q, qerr := ec.FilterLogs(context.Background(), ethereum.FilterQuery{Addresses: []common.Address{addr}})
		bn, _ := ec.BlockNumber(context.Background())
		t.Fatalf("log not received (getLogs: %d logs, %v; head %d)", len(q), qerr, bn)
	}
}
