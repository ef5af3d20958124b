package upstream

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nodegate/nodegate/jsonrpc"
)

// Which methods a member serves, learned from its answers (docs/pools.md,
// "Methods a member does not serve"): a -32601 from a member marks the
// call's method unavailable there for PoolConfig.MethodRecheck; while
// marked, calls of that method go to the other members, and the call that
// met the -32601 is tried on one of them. When every member lacks it, the
// call goes to one anyway (a re-probe) and its -32601 is the answer.

// maxLackedMethods bounds the methods marked on one member (a client
// names unlisted methods as it likes): past it no more are marked.
const maxLackedMethods = 256

// lackedMethods are the methods a member answered -32601, each until its
// re-probe.
type lackedMethods struct {
	n     atomic.Int32 // entries in until: 0 is the fast path of every call
	mu    sync.Mutex
	until map[string]time.Time
}

// lacks reports whether method is marked unavailable at now.
func (l *lackedMethods) lacks(method string, now time.Time) bool {
	if l.n.Load() == 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.until[method]
	if ok && !now.Before(t) {
		delete(l.until, method) // re-probed by this call
		l.n.Add(-1)
		return false
	}
	return ok
}

// mark marks method unavailable until now+d.
func (l *lackedMethods) mark(method string, now time.Time, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until == nil {
		l.until = map[string]time.Time{}
	}
	if _, ok := l.until[method]; !ok {
		if len(l.until) >= maxLackedMethods {
			return
		}
		l.n.Add(1)
	}
	l.until[method] = now.Add(d)
}

// list is the marked methods, sorted.
func (l *lackedMethods) list(now time.Time) []string {
	if l.n.Load() == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for m, t := range l.until {
		if now.Before(t) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// skipLacking marks as tried the members that lack method, unless every
// member left would be skipped (then one of them is asked: a re-probe).
func (p *Pool) skipLacking(method string, tried []bool) {
	now := time.Now()
	var lack [16]bool
	skip := lack[:0]
	serves := false
	for i, m := range p.members {
		l := m.lacked.lacks(method, now)
		skip = append(skip, l)
		if !l && !tried[i] && m.InService() {
			serves = true
		}
	}
	if !serves {
		return
	}
	for i, l := range skip {
		if l {
			tried[i] = true
		}
	}
}

// lacksMethod reports whether resp, m's answer to c, says m does not
// serve c's method (-32601), marking it so.
func (p *Pool) lacksMethod(m *Member, c Call, resp *jsonrpc.Response) bool {
	if c.Rule == nil || resp.Err == nil || resp.Err.Code != jsonrpc.CodeMethodNotFound {
		return false
	}
	m.lacked.mark(c.Rule.Name, time.Now(), p.cfg.MethodRecheck)
	return true
}

// untriedInService reports whether a member in service is left untried.
func (p *Pool) untriedInService(tried []bool) bool {
	for i, m := range p.members {
		if !tried[i] && m.InService() {
			return true
		}
	}
	return false
}
