package keys

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/nodegate/nodegate/internal/keys/pgtest"
)

// TestUsageFlushesOfTwoReplicasDoNotDeadlock: two replicas (two stores on
// one PostgreSQL schema) flush the same 300 usage records at once, one in
// the opposite order of the other, five times: every flush succeeds (the
// store writes rows in one order, so they wait for each other instead of
// deadlocking), and every increment is counted.
func TestUsageFlushesOfTwoReplicasDoNotDeadlock(t *testing.T) {
	const records, rounds = 300, 5
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	var replicas [2]Store
	for i := range replicas {
		s, err := OpenPostgres(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		replicas[i] = s
	}
	rows := make([]UsageRow, records)
	for i := range rows {
		rows[i] = UsageRow{Day: "2026-11-27", KeyID: fmt.Sprintf("key%03d", i), Network: "mainnet", Method: "eth_call", Requests: 1, Credits: 80}
	}
	reversed := slices.Clone(rows)
	slices.Reverse(reversed)
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		for i, batch := range [][]UsageRow{rows, reversed} {
			wg.Go(func() {
				<-start
				errs[i] = replicas[i].AddUsage(ctx, batch)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, replica %d: %v", round, i, err)
			}
		}
	}
	got, err := replicas[0].Usage(ctx, "key150", "2026-11-27")
	if err != nil || len(got) != 1 || got[0].Requests != 2*rounds {
		t.Fatalf("key150's record: %+v %v, want %d requests", got, err, 2*rounds)
	}
}
