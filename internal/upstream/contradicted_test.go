package upstream_test

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestContradictedHeadHoldsNoMark: a node whose answer shows block 17
// while its own head reports stay at 16 (a block it then lost) is
// followed back down, and the pool's mark goes down with it at once: the
// head its reports contradict does not hold calls at the head for
// lag_memory (here an hour, with an hour of head_wait).
func TestContradictedHeadHoldsNoMark(t *testing.T) {
	node := newFakeNode(t, 16, `"result":{"hash":"0x0000000000000000000000000000000000000000000000000000000000000001","number":"0x11"}`)
	const every = 20 * time.Millisecond
	p := startPool(t, upstream.PoolConfig{HeadInterval: every, ProbeInterval: every, LagMemory: time.Hour, HeadWait: time.Hour},
		httpMember(t, node.srv.URL))
	if resp := send(t, p, "eth_getBlockByNumber", `["latest",false]`, true); resp.Err != nil {
		t.Fatalf("%v", resp.Err)
	}
	if got := p.Head(); got != 17 {
		t.Fatalf("the answer's block was not learned: head %d", got)
	}
	testenv.WaitFor(t, 10*time.Second, "the node's own reports to lower its head", func() bool { return p.Status()[0].Head == 16 })
	if got := p.Head(); got != 16 {
		t.Fatalf("the pool's head is %d after the node's own reports said 16", got)
	}
}
