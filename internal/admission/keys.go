package admission

import (
	"sync"
	"sync/atomic"
)

// Keys counts each key's use of its plan's per-key caps on this process.
// Its zero value counts without execution turns; make it with New.
type Keys struct {
	// executionShare is how many calls that run code one account may run
	// at once (Turn); 0: no bound.
	executionShare int
	exec           *execQueue // nil without a share
	byKey          sync.Map   // key id → *use
}

// use is one key's counts. A key's record is made on its first use and
// kept: one small value per key that has used the process.
type use struct {
	calls         atomic.Int64
	webSockets    atomic.Int64
	subscriptions atomic.Int64
	// subscriptionParams is the size of its live logs subscriptions'
	// filters together (subfilters.go).
	subscriptionParams atomic.Int64
	connections        atomic.Int64 // keyed client connections (connections.go)
}

// New makes the process's admission. executionShare is how many calls
// that run code one account may run at once where they run on this
// process's CPUs (Turn); 0: no bound.
func New(executionShare int) *Keys { return NewWithSlots(executionShare, 0) }

// NewWithSlots is New, with executionSlots the calls that run code the
// process runs at once, for every account together, shared between them
// in turns (execqueue.go); 0: only the share bounds them.
func NewWithSlots(executionShare, executionSlots int) *Keys {
	a := &Keys{executionShare: max(executionShare, 0)}
	if a.executionShare > 0 {
		a.exec = newExecQueue(a.executionShare, executionSlots)
	}
	return a
}

// ExecutionShare is how many execution calls one account may run at once
// (0: no bound).
func (a *Keys) ExecutionShare() int { return a.executionShare }

// of is key id's record, made on first use.
func (a *Keys) of(id string) *use {
	if v, ok := a.byKey.Load(id); ok {
		return v.(*use)
	}
	v, _ := a.byKey.LoadOrStore(id, &use{})
	return v.(*use)
}

// Use is a key's counts at one moment. Executions are the calls that
// run code the key runs when it counts them itself (an operator key's;
// a dashboard key's are its account's).
type Use struct {
	Calls, WebSockets, Subscriptions, Executions int
	// SubscriptionParams is the size of the key's live logs
	// subscriptions' filters together.
	SubscriptionParams int
}

// Of is key id's counts now (zero for a key never seen).
func (a *Keys) Of(id string) Use {
	var executions int
	if a.exec != nil {
		executions = a.exec.runningOf("key:" + id)
	}
	v, ok := a.byKey.Load(id)
	if !ok {
		return Use{Executions: executions}
	}
	u := v.(*use)
	return Use{Calls: int(u.calls.Load()), WebSockets: int(u.webSockets.Load()),
		Subscriptions: int(u.subscriptions.Load()), Executions: executions,
		SubscriptionParams: int(u.subscriptionParams.Load())}
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
