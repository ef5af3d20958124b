package pipeline_test

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/admission"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/pipeline"
	"github.com/nodegate/nodegate/internal/upstream"
	"github.com/nodegate/nodegate/jsonrpc"
)

// TestOnlyWritesCarryTheCaller: the context a write reaches its node with
// names the caller's account (the embedded node counts a write's bytes
// for it, admission.AccountOf); a read's carries none (it would pay a
// context for nothing), alone or in a batch.
func TestOnlyWritesCarryTheCaller(t *testing.T) {
	t.Parallel()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0xaa")
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(1337)),
		&types.DynamicFeeTx{ChainID: big.NewInt(1337), GasFeeCap: big.NewInt(1e9), Gas: 21000, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	bin, _ := tx.MarshalBinary()
	write := `["` + hexutil.Encode(bin) + `"]`

	node := &callerRecorder{result: `"0x01"`}
	n := &pipeline.Network{Name: "caller", Methods: methods.NewTable(methods.FamilyEVM), Upstream: node.upstream("node")}
	call := func(method, params string) *pipeline.Call {
		c := mkCall(n, "1", method, params)
		c.Client.Remote = "192.0.2.7:5555"
		return c
	}
	const caller = "address:192.0.2.7"
	read := `["0x` + common.Hash{1}.Hex()[2:] + `"]`
	p := pipeline.Build(pipeline.Options{BatchParallelism: 2})
	tests := []struct {
		name  string
		serve func()
	}{
		{"alone", func() {
			p.Serve(context.Background(), call("eth_getTransactionByHash", read))
			p.Serve(context.Background(), call("eth_sendRawTransaction", write))
		}},
		{"in a batch", func() {
			calls := []*pipeline.Call{call("eth_getTransactionByHash", read), call("eth_sendRawTransaction", write)}
			p.ServeBatch(context.Background(), calls, pipeline.BatchLimits{}, func(int, *jsonrpc.Response) error { return nil })
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node.reset()
			tc.serve()
			node.check(t, map[string]string{"eth_getTransactionByHash": "", "eth_sendRawTransaction": caller})
		})
	}
}

// TestStarknetWritesCarryTheCaller: a Starknet write reaches its node with
// the caller's account (the embedded devnet bounds each account's hashing
// by it: devnet/devnet_hashshare.go), a read without.
func TestStarknetWritesCarryTheCaller(t *testing.T) {
	t.Parallel()
	devnet := &callerRecorder{result: `"0x1"`}
	n := &pipeline.Network{Name: "starknet-caller", Methods: methods.NewTable(methods.FamilyStarknet), Upstream: devnet.upstream("devnet")}
	p := pipeline.Build(pipeline.Options{BatchParallelism: 2})
	for _, m := range []struct{ method, params string }{
		{"starknet_addInvokeTransaction", `[{"type":"INVOKE"}]`},
		{"starknet_chainId", `[]`},
	} {
		c := mkCall(n, "1", m.method, m.params)
		c.Client.Remote = "192.0.2.8:5555"
		p.Serve(context.Background(), c)
	}
	devnet.check(t, map[string]string{"starknet_addInvokeTransaction": "address:192.0.2.8", "starknet_chainId": ""})
}

// callerRecorder is a node that answers every single call with result
// and records, by method, the account the call's context named
// (admission.AccountOf).
type callerRecorder struct {
	result string
	mu     sync.Mutex
	seen   map[string]string
}

func (r *callerRecorder) upstream(id string) upstream.Func {
	return upstream.Func{ID: id, Fn: func(ctx context.Context, body []byte) ([]byte, error) {
		msgs, _, err := jsonrpc.Parse(body, 1)
		if err != nil || len(msgs) != 1 {
			return nil, err
		}
		r.mu.Lock()
		if r.seen == nil {
			r.seen = map[string]string{}
		}
		r.seen[msgs[0].Req.Method] = admission.AccountOf(ctx)
		r.mu.Unlock()
		return jsonrpc.AppendResponse(nil, msgs[0].Req.ID, &jsonrpc.Response{Result: json.RawMessage(r.result)}), nil
	}}
}

func (r *callerRecorder) reset() { r.mu.Lock(); defer r.mu.Unlock(); clear(r.seen) }

// check fails t unless each method of want reached the node naming the
// account want gives it ("": none).
func (r *callerRecorder) check(t *testing.T, want map[string]string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for method, account := range want {
		if got, ok := r.seen[method]; !ok || got != account {
			t.Errorf("%s reached its node as %q (sent: %v), want %q", method, got, ok, account)
		}
	}
}
