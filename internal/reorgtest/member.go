package reorgtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/evmnode/evmnodetest"
)

// Member is a go-ethereum node on loopback (HTTP and WebSocket on one
// port) on the builder's chain that makes no block of its own: it imports
// the builder's blocks as engine_newPayload does and moves its head, safe
// and finalized blocks as engine_forkchoiceUpdated does (Apply).
type Member struct {
	Node *evmnode.Node
}

// StartMember starts a member on the builder's genesis with the builder's
// chain so far.
func StartMember(t testing.TB, b *Builder) *Member {
	t.Helper()
	dir := t.TempDir()
	g, err := json.Marshal(b.Genesis())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "genesis.json"), g, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chain.rlp"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	n := evmnodetest.Start(t, evmnode.Config{ChainDir: dir, HTTPAddr: "127.0.0.1:0", MaxChainBytes: -1})
	if got, want := n.Ethereum().BlockChain().Genesis().Hash(), b.chain.Genesis().Hash(); got != want {
		t.Fatalf("member genesis %s, the builder's %s", got, want)
	}
	m := &Member{Node: n}
	blocks := b.Blocks()
	genesis := b.chain.Genesis().Header()
	if err := m.Apply(Event{Blocks: blocks, Head: blocks[len(blocks)-1], Safe: genesis, Finalized: genesis}); err != nil {
		t.Fatal(err)
	}
	return m
}

// HTTP is the member's HTTP URL.
func (m *Member) HTTP() string { return m.Node.HTTPEndpoint() }

// WS is the member's WebSocket URL (the same port).
func (m *Member) WS() string { return "ws://" + strings.TrimPrefix(m.Node.HTTPEndpoint(), "http://") }

// Apply imports ev's blocks without making them the head (newPayload),
// then makes ev's head the head and sets safe and finalized
// (forkchoiceUpdated): a switch of branch is a reorg inside the node, its
// removed logs and new head sent to its subscribers as go-ethereum does.
func (m *Member) Apply(ev Event) error {
	bc := m.Node.Ethereum().BlockChain()
	ctx, cancel := waitContext()
	defer cancel()
	for _, blk := range ev.Blocks {
		if bc.HasBlock(blk.Hash(), blk.NumberU64()) {
			continue
		}
		if _, err := bc.InsertBlockWithoutSetHead(ctx, blk, false); err != nil {
			return fmt.Errorf("import block %d %s: %w", blk.NumberU64(), blk.Hash(), err)
		}
	}
	if bc.CurrentBlock().Hash() != ev.Head.Hash() {
		if _, err := bc.SetCanonical(ev.Head); err != nil {
			return fmt.Errorf("set head %d %s: %w", ev.Head.NumberU64(), ev.Head.Hash(), err)
		}
	}
	if ev.Safe != nil {
		bc.SetSafe(ev.Safe)
	}
	if ev.Finalized != nil {
		bc.SetFinalized(ev.Finalized)
	}
	return nil
}
