package upstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/nodegate/nodegate/jsonrpc"
)

// `safe` and `finalized` never go back: the pool keeps, per tag, the
// highest block number it gave a client for it (Pool.tagMarks); an answer
// to a call naming the tag whose block is below that mark comes from a
// member whose safe or finalized block lags: it is asked of another
// member in service on the canonical branch (send.go), and taken only
// when none answers better (every member that had it is out). The marks
// rise with each answer given, never fall.
//
// A member whose finalized block is not the canonical chain's block at
// that height, while the chain holds the member's head (its chain
// disagrees with the pool's below what it calls final), is out of service
// until it agrees (poll, head.go).

// blockTag is a finality tag a call names.
type blockTag uint8

const (
	tagNone blockTag = iota
	tagSafe
	tagFinalized
	tagCount
)

// tagBehind reads the block number an answer to a call naming ref's tag
// gives (a block: its number beside its hash) and reports whether it is
// below the highest the pool gave for that tag. ok is false when the
// call names no tag or the answer names no block.
func (p *Pool) tagBehind(k kind, ref blockRef, resp *jsonrpc.Response) (n uint64, ok, behind bool) {
	if ref.tag == tagNone || resp.Err != nil {
		return 0, false, false
	}
	n, _, ok = k.answerBlock(resp.Result)
	if !ok {
		return 0, false, false
	}
	return n, true, n < p.tagMarks[ref.tag].Load()
}

// gaveTag records that block n was given for tag.
func (p *Pool) gaveTag(tag blockTag, n uint64) {
	storeMax(&p.tagMarks[tag], n)
}

var errNoFinalized = errors.New("finalized block: no number or hash")

// finalizedOf asks m for its finalized block's number and hash.
func (p *Pool) finalizedOf(ctx context.Context, m *Member) (uint64, common.Hash, error) {
	var b struct {
		Number *hexutil.Uint64 `json:"number"`
		Hash   *common.Hash    `json:"hash"`
	}
	if err := askBlock(ctx, m.Upstream.Do, p.req.finalized, "finalized block", &b); err != nil {
		return 0, common.Hash{}, err
	}
	if b.Number == nil {
		return 0, common.Hash{}, errNoFinalized
	}
	var h common.Hash
	if b.Hash != nil {
		h = *b.Hash
	}
	return uint64(*b.Number), h, nil
}

// finalizedDisagrees is the reason a member whose head is head and whose
// finalized block n has hash h is out of service; nil when the canonical
// chain does not hold the member's head (the member is behind on another
// branch, or the chain itself followed a branch the member's finality
// rules out: its finalized block is judged only against a chain that
// holds its head), or does not hold n, or holds it with h.
func (p *Pool) finalizedDisagrees(head headBlock, n uint64, h common.Hash) error {
	if h == (common.Hash{}) || head.Hash == (common.Hash{}) {
		return nil
	}
	c := p.canon
	c.mu.Lock()
	holds := c.holds(head)
	ch, held := c.at(n)
	c.mu.Unlock()
	if !holds || !held || ch == h {
		return nil
	}
	return fmt.Errorf("its finalized block %d is %s, the canonical chain's is %s", n, h.Hex(), ch.Hex())
}
