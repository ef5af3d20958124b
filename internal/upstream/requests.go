package upstream

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/internal/familykind"
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/jsonrpc"
)

// requests are the bodies of the calls a pool makes of its own (never a
// client's): its head polls, its chain checks, its finalized block, gas
// limit and genesis reads, and the question whether a member holds a
// transaction. Each is built here, once per pool, from the family's
// methods the pool is configured with (PoolConfig); a method the pool was
// not given is the default family's (familykind.All[0]: a pool made
// without a family, a bare upstream), so that upstream names no method.
type requests struct {
	head      []byte // the head's number (HeadMethod)
	headBlock []byte // the head block, with its hash ("latest")
	finalized []byte // the finalized block
	genesis   []byte // block 0
	chainID   []byte // the chain id (ChainIDMethod)
	txMethod  string // a transaction by its hash
	// stateProbe and logsProbe are the methods floors are probed with
	// (floorprobe.go): only the configured family's, "" none (a pool made
	// without them learns its members' floors from their answers alone).
	stateProbe, logsProbe string
}

func newRequests(c PoolConfig) requests {
	def := familykind.All[0]
	or := func(method, fallback string) string {
		if method != "" {
			return method
		}
		return fallback
	}
	block := or(c.HeadBlockMethod, def.HeadBlockMethod)
	blockAt := func(tag string) []byte {
		return jsonrpc.AppendRequest(nil, 1, block, json.RawMessage(`["`+tag+`",false]`))
	}
	return requests{
		head:      jsonrpc.AppendRequest(nil, 1, or(c.HeadMethod, def.HeadMethod), json.RawMessage("[]")),
		headBlock: blockAt("latest"),
		finalized: blockAt("finalized"),
		genesis:   blockAt("0x0"),
		chainID:   jsonrpc.AppendRequest(nil, 1, or(c.ChainIDMethod, def.ChainIDMethod), json.RawMessage("[]")),
		txMethod:  or(c.TxByHashMethod, def.TxByHashMethod),

		stateProbe: c.StateProbeMethod, logsProbe: c.LogsProbeMethod,
	}
}

// probeAt asks for the cheap read of kind at block n (floorprobe.go): the
// balance of the zero address, or the block's receipts; nil when the pool
// has no method for the kind.
func (r requests) probeAt(kind methods.Needs, n uint64) []byte {
	block := hexutil.EncodeUint64(n)
	switch {
	case kind == methods.NeedsState && r.stateProbe != "":
		return jsonrpc.AppendRequest(nil, 1, r.stateProbe, json.RawMessage(`["0x0000000000000000000000000000000000000000","`+block+`"]`))
	case kind == methods.NeedsHistory && r.logsProbe != "":
		return jsonrpc.AppendRequest(nil, 1, r.logsProbe, json.RawMessage(`["`+block+`"]`))
	}
	return nil
}

// txByHash asks for the transaction of hash h.
func (r requests) txByHash(h common.Hash) []byte {
	params, _ := json.Marshal([]common.Hash{h})
	return jsonrpc.AppendRequest(nil, 1, r.txMethod, params)
}
