package admission

import (
	"sync"
	"sync/atomic"
)

// Keys counts each key's use of its plan's per-key caps on this process.
// Its zero value counts without execution turns; make it with New.
type Keys struct {
	// executionShare is how many calls that run code one key may run at
	// once (Turn); 0: no bound.
	executionShare int
	byKey          sync.Map // key id → *use
}

// use is one key's counts. A key's record is made on its first use and
// kept: one small value per key that has used the process.
type use struct {
	calls         atomic.Int64
	webSockets    atomic.Int64
	subscriptions atomic.Int64
	connections   atomic.Int64 // keyed client connections (connections.go)
	// turns holds one token per execution call running (its capacity is
	// the share); nil without a share.
	turns chan struct{}
}

// New makes the process's admission. executionShare is how many calls
// that run code one key may run at once where they run on this process's
// CPUs (Turn); 0: no bound.
func New(executionShare int) *Keys {
	return &Keys{executionShare: max(executionShare, 0)}
}

// ExecutionShare is how many execution calls one key may run at once (0:
// no bound).
func (a *Keys) ExecutionShare() int { return a.executionShare }

// of is key id's record, made on first use.
func (a *Keys) of(id string) *use {
	if v, ok := a.byKey.Load(id); ok {
		return v.(*use)
	}
	u := &use{}
	if a.executionShare > 0 {
		u.turns = make(chan struct{}, a.executionShare)
	}
	v, _ := a.byKey.LoadOrStore(id, u)
	return v.(*use)
}

// Use is a key's counts at one moment.
type Use struct {
	Calls, WebSockets, Subscriptions, Executions int
}

// Of is key id's counts now (zero for a key never seen).
func (a *Keys) Of(id string) Use {
	v, ok := a.byKey.Load(id)
	if !ok {
		return Use{}
	}
	u := v.(*use)
	return Use{Calls: int(u.calls.Load()), WebSockets: int(u.webSockets.Load()),
		Subscriptions: int(u.subscriptions.Load()), Executions: len(u.turns)}
}

// takeUpTo adds up to want to n without passing limit, and returns what
// it added (0 when n is at limit).
func takeUpTo(n *atomic.Int64, limit, want int64) int64 {
	for {
		cur := n.Load()
		if cur >= limit {
			return 0
		}
		g := min(want, limit-cur)
		if n.CompareAndSwap(cur, cur+g) {
			return g
		}
	}
}

// nothing is the release of a use that was not counted.
func nothing() {}
