package coalesce

import (
	"strconv"
	"sync/atomic"

	"github.com/nodegate/nodegate/jsonrpc"
	"golang.org/x/sync/singleflight"
)

// Group coalesces identical calls of one network. The zero value is ready.
type Group struct {
	sf singleflight.Group
	// shared counts callers whose call was shared with another (the first
	// caller of a shared call included).
	shared atomic.Int64
	// inside counts callers in Do now.
	inside atomic.Int64
}

// Key identifies a read: method and params as sent, and the chain the
// network stood on — its head block's number and its epoch
// (upstream.Pool.Epoch, which moves at each reorganisation and each
// other replica's head the chain does not hold) — so that "latest" (and
// every call that means it) is only shared at the same resolved head, and
// no call is shared across a reorganisation: a call made after the chain
// moved to another branch at the same height (an equal fork, or a shorter
// one grown back) would otherwise be given an answer from the branch it
// left, an answer judged before the move.
func Key(buf []byte, method string, params []byte, head, epoch uint64) []byte {
	buf = append(buf, method...)
	buf = append(buf, 0)
	buf = append(buf, params...)
	buf = append(buf, 0)
	buf = strconv.AppendUint(buf, head, 10)
	buf = append(buf, '/')
	return strconv.AppendUint(buf, epoch, 10)
}

type result struct {
	resp   *jsonrpc.Response
	member string
}

// Do runs fn once for all callers with the same key at the same time and
// gives each its own copy of the answer. fn must not depend on the caller
// (no caller's deadline or cancellation: the answer is shared).
func (g *Group) Do(key []byte, fn func() (*jsonrpc.Response, string, error)) (*jsonrpc.Response, string, error) {
	g.inside.Add(1)
	defer g.inside.Add(-1)
	v, err, shared := g.sf.Do(string(key), func() (any, error) {
		resp, member, err := fn()
		return result{resp, member}, err
	})
	if shared {
		g.shared.Add(1)
	}
	r, _ := v.(result)
	if err != nil || r.resp == nil {
		return nil, "", err
	}
	cp := *r.resp
	return &cp, r.member, nil
}

// Shared is how many callers took part in a shared call so far.
func (g *Group) Shared() int64 { return g.shared.Load() }

// Inside is how many callers are in Do now (waiting for a call).
func (g *Group) Inside() int64 { return g.inside.Load() }
