package reorgtest

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
)

// Builder makes the blocks: a go-ethereum dev node that seals only when
// asked (its simulated beacon builds each block as a consensus client
// would), each block holding one call of a contract that logs its
// calldata, so that every block has a receipt and a log of its own.
// Fork makes the block some blocks below the head the head, the blocks
// above it abandoned; their transactions return to the pool and go into
// the new branch's first block (as on a real chain).
type Builder struct {
	node     *evmnode.Node
	chain    *core.BlockChain
	key      *ecdsa.PrivateKey
	from     common.Address
	signer   types.Signer
	Contract common.Address // the logging contract, deployed in block 2
	Tree     *Tree
	gen      int
	calls    uint64
	safe     uint64 // the highest safe number given (forks never go below it)
	final    uint64
}

// Event is one move of the builder's chain: the new blocks (parents
// first) and the head, safe and finalized blocks a consensus client would
// announce after it.
type Event struct {
	Blocks          []*types.Block
	Head            *types.Block
	Safe, Finalized *types.Header
	Fork            bool // the head left the previous head's branch
}

// Fork kinds: how long the new branch is against the one it replaces.
const (
	Longer = iota
	Equal
	Shorter
)

// KindName names a fork kind.
func KindName(kind int) string { return [...]string{"longer", "equal", "shorter"}[kind] }

// safeDepth and finalDepth: the safe and finalized blocks trail the head
// by this many blocks (and never go back); forks go at most maxDepth
// below the head and never below the safe block. A finalized block as
// deep as the deepest fork makes a member that switched first finalize
// a block of the new branch while one that switches later still serves
// the abandoned one at that height.
const (
	safeDepth  = 3
	finalDepth = 3
	maxDepth   = 3
)

// logContract's runtime code logs its calldata under topic 1:
// CALLDATASIZE PUSH1 0 PUSH1 0 CALLDATACOPY PUSH1 1 CALLDATASIZE PUSH1 0 LOG1 STOP.
var logContract = common.FromHex("0x36600060003760013660" + "00a100")

// deployCode returns logContract's runtime code.
func deployCode() []byte {
	n := byte(len(logContract))
	// PUSH1 n PUSH1 12 PUSH1 0 CODECOPY PUSH1 n PUSH1 0 RETURN, then the code.
	init := []byte{0x60, n, 0x60, 12, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xf3}
	return append(init, logContract...)
}

// NewBuilder starts the builder's node, deploys the logging contract and
// returns with the chain at head 2 (the node's first empty block, the
// deployment), both canonical for good.
func NewBuilder(t testing.TB) *Builder {
	t.Helper()
	n := evmnodetest.Start(t, evmnode.Config{BlockTime: 24 * time.Hour, MaxChainBytes: -1})
	acc := n.Accounts()[0]
	b := &Builder{node: n, chain: n.Ethereum().BlockChain(), key: acc.Key, from: acc.Address,
		signer: types.LatestSigner(n.Ethereum().BlockChain().Config()), Tree: newTree()}
	first := b.chain.GetBlockByNumber(1)
	b.Tree.add(b.chain.Genesis().Hash(), common.Hash{}, 0, 0, nil, nil)
	b.record(first)
	nonce := b.nonce()
	b.Contract = crypto.CreateAddress(b.from, nonce)
	if err := b.send(nonce, nil, deployCode()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.seal(); err != nil {
		t.Fatal(err)
	}
	if code := b.codeAt(b.Contract); len(code) == 0 {
		t.Fatal("the logging contract was not deployed")
	}
	return b
}

// Head is the builder's head block.
func (b *Builder) Head() *types.Block { return b.chain.GetBlockByHash(b.chain.CurrentBlock().Hash()) }

// Blocks are the canonical blocks 1..head, for a member starting late.
func (b *Builder) Blocks() []*types.Block {
	var out []*types.Block
	for i := uint64(1); i <= b.chain.CurrentBlock().Number.Uint64(); i++ {
		out = append(out, b.chain.GetBlockByNumber(i))
	}
	return out
}

// Extend seals one block on the head.
func (b *Builder) Extend() (Event, error) {
	blk, err := b.step()
	if err != nil {
		return Event{}, err
	}
	return b.event([]*types.Block{blk}, false), nil
}

// Fork abandons the depth blocks below the head (fewer when the safe
// block is closer) and seals a new branch from the block under them: one
// block more (Longer), as many (Equal) or one fewer (Shorter; none when
// depth is 1: the fork point itself is the new head, a rewind).
func (b *Builder) Fork(depth, kind int) (Event, error) {
	head := b.chain.CurrentBlock().Number.Uint64()
	depth = min(depth, maxDepth, int(head-max(b.safe, 2)))
	if depth < 1 {
		return b.Extend()
	}
	point := head - uint64(depth)
	parent := b.chain.GetBlockByNumber(point)
	if err := b.node.Fork(parent.Hash()); err != nil {
		return Event{}, err
	}
	b.gen++
	b.Tree.abandon(point, b.gen)
	if err := b.node.Ethereum().TxPool().Sync(); err != nil {
		return Event{}, fmt.Errorf("pool sync after the fork: %w", err)
	}
	length := depth + 1 - kind // Longer: depth+1, Equal: depth, Shorter: depth-1
	var blocks []*types.Block
	for range length {
		blk, err := b.step()
		if err != nil {
			return Event{}, err
		}
		blocks = append(blocks, blk)
	}
	return b.event(blocks, true), nil
}

// event is the announcement after the chain moved to the builder's head.
func (b *Builder) event(blocks []*types.Block, fork bool) Event {
	head := b.Head()
	n := head.NumberU64()
	if n > safeDepth {
		b.safe = max(b.safe, n-safeDepth)
	}
	if n > finalDepth {
		b.final = max(b.final, n-finalDepth)
	}
	return Event{Blocks: blocks, Head: head, Fork: fork,
		Safe: b.chain.GetHeaderByNumber(b.safe), Finalized: b.chain.GetHeaderByNumber(b.final)}
}

// step sends one call of the logging contract and seals it.
func (b *Builder) step() (*types.Block, error) {
	b.calls++
	data := make([]byte, 32)
	binary.BigEndian.PutUint64(data[24:], b.calls)
	binary.BigEndian.PutUint64(data[16:], uint64(b.gen))
	if err := b.send(b.nonce(), &b.Contract, data); err != nil {
		return nil, err
	}
	return b.seal()
}

// nonce is the account's next nonce: after its pending transactions,
// once the pool caught up with the head (it resets after each block on
// its own goroutine; after a fork the abandoned transactions are pending
// again, though the pool's own next nonce is the state's).
func (b *Builder) nonce() uint64 {
	pool := b.node.Ethereum().TxPool()
	_ = pool.Sync()
	next := pool.Nonce(b.from)
	pending, _ := pool.ContentFrom(b.from)
	for _, tx := range pending {
		next = max(next, tx.Nonce()+1)
	}
	return next
}

func (b *Builder) send(nonce uint64, to *common.Address, data []byte) error {
	gas := uint64(60_000)
	if to == nil {
		gas = 200_000
	}
	tx, err := types.SignNewTx(b.key, b.signer, &types.DynamicFeeTx{ChainID: b.chain.Config().ChainID, Nonce: nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: gas, To: to, Data: data})
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	if errs := b.node.Ethereum().TxPool().Add([]*types.Transaction{tx}, true); errs[0] != nil {
		return fmt.Errorf("add transaction %d: %w", nonce, errs[0])
	}
	return nil
}

// seal seals the pool into a block and records it.
func (b *Builder) seal() (*types.Block, error) {
	before := b.chain.CurrentBlock().Hash()
	if err := b.node.Commit(); err != nil {
		return nil, err
	}
	blk := b.Head()
	if blk.Hash() == before {
		return nil, fmt.Errorf("the builder sealed no block on %s", before)
	}
	b.record(blk)
	return blk, nil
}

// record adds blk, the new head, to the tree with its transactions and logs.
func (b *Builder) record(blk *types.Block) {
	var txs []common.Hash
	for _, tx := range blk.Transactions() {
		txs = append(txs, tx.Hash())
	}
	var logs []LogID
	for _, r := range b.chain.GetReceiptsByHash(blk.Hash()) {
		for _, l := range r.Logs {
			logs = append(logs, LogID{Block: blk.Hash(), Index: uint64(l.Index)})
		}
	}
	b.Tree.add(blk.Hash(), blk.ParentHash(), blk.NumberU64(), b.gen, txs, logs)
}

func (b *Builder) codeAt(addr common.Address) []byte {
	st, err := b.chain.State()
	if err != nil {
		return nil
	}
	return st.GetCode(addr)
}

// Genesis is the builder's genesis, for members.
func (b *Builder) Genesis() *core.Genesis { return evmnode.DevGenesis(len(b.node.Accounts())) }

// waitContext bounds what a step of the harness may take.
func waitContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}
