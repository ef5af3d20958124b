package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Linking a head to the chain: a member's new head that the chain would
// follow but whose parent is not the chain's block at its height (a head
// polled after two blocks, a fork's head: go-ethereum pushes only the head
// it sets after a reorganisation, a poll sees only the head) is linked by
// reading the blocks in between from that member, by number, each hash
// checked against its child's parent hash, down to a block the chain
// holds, or to the window's lowest height (the path then is the window),
// at most maxLink blocks. Linked, the chain holds the new branch
// from the fork point up, so that a member still on the old branch is on
// another branch at every height, not "on the chain" below a window that
// restarted at the fork. A head that cannot be linked (a read failed, the
// member moved meanwhile, the fork is deeper) restarts the window at the
// head, as before.

// maxLink is the most blocks read to link one head to the chain.
const maxLink = 64

// unlinked reports whether member i's head b would be followed by the
// chain (it is above the head, or reported by the head member, or the
// head member is out, or it may carry a peer's claim: canonclaim.go) and
// its parent is not the chain's block at its
// height, within the window: the blocks between must be read.
func (c *canon) unlinked(i int, b headBlock, inService func(int) bool) bool {
	if !c.has || b.Hash == c.head.Hash || b.Number == 0 || b.Number <= c.low || c.holds(b) {
		return false
	}
	if p, ok := c.at(b.Number - 1); ok && p == b.Parent {
		return false
	}
	return b.Number > c.head.Number || i == c.by || c.by < 0 || !inService(c.by) || c.claimWants(b)
}

// linksAt reports whether x, a block read on the way down, has its parent
// on the chain.
func (c *canon) linksAt(x headBlock) bool {
	p, ok := c.at(x.Number - 1)
	return x.Number > 0 && ok && p == x.Parent
}

// link writes path, the blocks between the chain and b (lowest first),
// into the window when they link b to it (or start at the window's lowest
// height: the window restarts there); the chain's blocks they replace
// leave it. It reports whether they did.
func (c *canon) link(b headBlock, path []headBlock) bool {
	if len(path) == 0 || !c.linksAt(path[0]) && path[0].Number != c.low {
		return false
	}
	for x := 1; x < len(path); x++ {
		if path[x].Number != path[x-1].Number+1 || path[x].Parent != path[x-1].Hash {
			return false
		}
	}
	if last := path[len(path)-1]; last.Number+1 != b.Number || last.Hash != b.Parent {
		return false
	}
	c.leave(path[0].Number)
	if !c.linksAt(path[0]) {
		c.low = path[0].Number // read down to the window's lowest block: the window is the path's
	}
	for _, x := range path {
		c.slots[x.Number%canonWindow] = x
	}
	return true
}

// linkPath reads from m the blocks between the chain and b, its head, when
// the chain would follow b without holding its parent (nil: none needed,
// or they could not be read). It is I/O: never under the chain's lock.
func (p *Pool) linkPath(m *Member, i int, b headBlock) []headBlock {
	c := p.canon
	inService := func(j int) bool { return p.members[j].InService() }
	c.mu.Lock()
	need := c.unlinked(i, b, inService)
	c.mu.Unlock()
	if !need {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(p.cfg.AttemptTimeout, 5*time.Second))
	defer cancel()
	var path []headBlock // highest first
	want := b.Parent
	for n := b.Number - 1; len(path) < maxLink; n-- {
		x, err := p.blockAt(ctx, m, n)
		if err != nil || x.Hash != want {
			return nil // the member moved meanwhile, or cannot say
		}
		path = append(path, x)
		c.mu.Lock()
		done, below := c.linksAt(x), n <= c.low
		c.mu.Unlock()
		if done || below {
			for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
				path[l], path[r] = path[r], path[l]
			}
			return path
		}
		if n == 0 {
			return nil
		}
		want = x.Parent
	}
	return nil
}

// blockAt asks m for its block at height n: its number, hash and parent.
func (p *Pool) blockAt(ctx context.Context, m *Member, n uint64) (headBlock, error) {
	params := json.RawMessage(`["0x` + strconv.FormatUint(n, 16) + `",false]`)
	out, err := m.Upstream.Do(ctx, jsonrpc.AppendRequest(nil, 1, p.cfg.HeadBlockMethod, params))
	if err != nil {
		return headBlock{}, err
	}
	_, resp, err := jsonrpc.DecodeResponse(out)
	if err != nil {
		return headBlock{}, fmt.Errorf("block %d: %w", n, err)
	}
	if resp.Err != nil {
		return headBlock{}, fmt.Errorf("block %d: %w", n, resp.Err)
	}
	x, err := parseHeadBlock(resp.Result)
	if err != nil {
		return headBlock{}, err
	}
	if x.Number != n {
		return headBlock{}, fmt.Errorf("block %d: the answer is block %d", n, x.Number)
	}
	return x, nil
}
