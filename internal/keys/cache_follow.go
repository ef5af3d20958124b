package keys

import (
	"context"
	"log/slog"
	"time"
)

// purgeEvery is how often a Cache purges the accounts' keys revoked longer
// than RevokedRetention (every replica does; the delete is idempotent).
const purgeEvery = time.Hour

// followChanges brings the snapshot to change number v by reloading only
// the keys the store's change log names. done is false when the log does
// not account for every change since the snapshot's (the caller reloads
// every live key then).
func (c *Cache) followChanges(ctx context.Context, v int64) (done bool, err error) {
	ids, complete, err := c.store.ChangedSince(ctx, c.version, v)
	if err != nil || !complete {
		return false, err
	}
	recs, err := c.store.GetMany(ctx, ids)
	if err != nil {
		return false, err
	}
	c.publishChanged(ids, recs)
	return true, nil
}

// publishChanged swaps in a snapshot where the keys ids are as recs say:
// the active ones (re)compiled, the others (revoked, suspended, deleted)
// gone. Its cost is a copy of the shards those keys are in
// (cache_table.go), not of the table, nor a read of the store's keys.
func (c *Cache) publishChanged(ids []string, recs []Record) {
	old := c.snap.Load()
	e := edit(old.keys)
	carried := map[string]*Key{} // last-used counters go on by id
	for _, id := range ids {
		if prev, ok := old.keys.byIDOf(id); ok && !prev.Static {
			carried[id] = prev
			e.remove(prev)
		}
	}
	for i := range recs {
		if k := c.compiled(&recs[i], carried[recs[i].ID]); k != nil {
			e.put(k)
		}
	}
	c.snap.Store(&snapshot{keys: e.done(), replaced: make(chan struct{})})
	close(old.replaced)
}

// purgeRevoked runs the store's purge of long-revoked keys; a failure is
// retried at the next turn.
func (c *Cache) purgeRevoked(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	n, err := c.store.PurgeRevoked(pctx, time.Now())
	switch {
	case err != nil:
		slog.Debug("key store: revoked keys not purged yet", "err", err)
	case n > 0:
		slog.Info("keys: purged revoked keys past their retention", "purged", n, "retention", RevokedRetention)
	}
}
