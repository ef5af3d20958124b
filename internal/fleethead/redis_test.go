package fleethead_test

import (
	"testing"
	"time"

	"github.com/nodegate/nodegate/internal/fleethead"
	"github.com/nodegate/nodegate/internal/ratelimit/redistest"
	"github.com/nodegate/nodegate/internal/testenv"
	"github.com/nodegate/nodegate/internal/upstream"
)

// TestHeadsCrossRedis: a head one replica's pool gave reaches another
// replica's pool as its head; a rewind lowers it; a replica joining
// later starts from the fleet's highest head; while a replica's Redis is
// away its pool keeps its own view, and heads cross again once Redis is
// back.
func TestHeadsCrossRedis(t *testing.T) {
	rc := redistest.Require(t)
	prefix := redistest.Prefix(t, rc)
	proxy := testenv.NewProxy(t, redistest.Addr())
	start := func(addr string) *fleethead.Fleet { return startFleet(t, addr, prefix) }
	a, b := start(redistest.Addr()), start(proxy.Addr())
	poolA, poolB := upstream.NewPool("a", upstream.PoolConfig{}), upstream.NewPool("b", upstream.PoolConfig{LagMemory: time.Hour})
	netA := a.Join("main", poolA)
	b.Join("main", poolB)
	headOf := func(p *upstream.Pool, want uint64) func() bool { return func() bool { return p.Head() == want } }

	// Each message is sent once its subscription is there: wait for the
	// first one to arrive, sending again until then.
	testenv.WaitFor(t, 10*time.Second, "a head to cross", func() bool {
		netA.HeadMoved(10, false)
		return poolB.Head() == 10
	})
	netA.HeadMoved(8, true)
	testenv.WaitFor(t, 10*time.Second, "a rewind to cross", headOf(poolB, 8))
	netA.HeadMoved(11, false)
	testenv.WaitFor(t, 10*time.Second, "a new head to cross", headOf(poolB, 11))

	late := upstream.NewPool("c", upstream.PoolConfig{LagMemory: time.Hour})
	start(redistest.Addr()).Join("main", late)
	testenv.WaitFor(t, 10*time.Second, "a replica joining to read the fleet's head", headOf(late, 11))

	proxy.Cut()
	netA.HeadMoved(12, false) // b does not hear of it
	testenv.WaitFor(t, 10*time.Second, "the late replica to hear of 12", headOf(late, 12))
	if got := poolB.Head(); got != 11 {
		t.Errorf("b, its Redis away: head %d, want its own 11", got)
	}
	proxy.Restore()
	testenv.WaitFor(t, 30*time.Second, "heads to cross again once Redis is back", func() bool {
		netA.HeadMoved(13, false)
		return poolB.Head() == 13
	})
}

// startFleet is a replica's side of the fleet's heads through the Redis
// at addr, closed when the test ends.
func startFleet(t *testing.T, addr, prefix string) *fleethead.Fleet {
	t.Helper()
	f, err := fleethead.New(fleethead.Options{RedisURL: "redis://" + addr + "/0", Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}
