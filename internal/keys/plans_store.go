package keys

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"strings"
)

// Plans in the shared store: the configuration's plans: are the seed, and
// what a key's plan grants is what the key store holds, the same on every
// replica. A replica writes its file's plans only to a store that holds
// none (SeedPlans); afterwards they change only by an operator's explicit
// `nodegate plans push` (PublishPlans), and a replica whose file differs
// says so at start and reload (WARN) and grants the store's. Every replica
// applies the store's within key_refresh.

// SeedPlans writes configured to a store that holds no plans yet (a new
// fleet). A store that holds plans keeps them, whatever configured says: a
// replica restarted with an older file must not move the fleet's plans
// back; when they differ it logs so, loudly, with what differs and the
// command that would write them.
func SeedPlans(ctx context.Context, st Store, configured map[string]Plan) error {
	stored, err := st.StoredPlans(ctx)
	if err != nil {
		return err
	}
	if len(stored) == 0 {
		_, err := st.PublishPlans(ctx, configured)
		return err
	}
	if !reflect.DeepEqual(stored, named(configured)) {
		slog.Warn("PLANS NOT APPLIED: this replica's configuration (plans:) differs from the key store's plans; the fleet keeps granting the store's. To make the file's the fleet's, run `nodegate plans push --config FILE`",
			"differs", planDiff(stored, configured), "store", st.Describe())
	}
	return nil
}

// StoredPlans returns the plans kept in the store (empty before any
// replica wrote them).
func (s *sqlStore) StoredPlans(ctx context.Context) (map[string]Plan, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name, definition FROM nodegate_plans")
	if err != nil {
		return nil, fmt.Errorf("read plans: %w", err)
	}
	defer rows.Close()
	out := map[string]Plan{}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, fmt.Errorf("read plans: %w", err)
		}
		var p Plan
		if err := json.Unmarshal([]byte(def), &p); err != nil {
			return nil, fmt.Errorf("plan %s: corrupt definition in store: %w", name, err)
		}
		p.Name = name
		out[name] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read plans: %w", err)
	}
	return out, nil
}

// PublishPlans makes plans the store's (an empty store's seed, or
// `nodegate plans push`) when they differ from what it holds, in one transaction that bumps the change counter; it reports
// whether it wrote.
func (s *sqlStore) PublishPlans(ctx context.Context, plans map[string]Plan) (bool, error) {
	wrote := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// The counter first: its row lock orders concurrent publishers.
		if err := s.bump(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT name, definition FROM nodegate_plans")
		if err != nil {
			return fmt.Errorf("read plans: %w", err)
		}
		held := map[string]Plan{}
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				rows.Close()
				return fmt.Errorf("read plans: %w", err)
			}
			var p Plan
			_ = json.Unmarshal([]byte(def), &p) // a corrupt one differs, and is replaced
			p.Name = name
			held[name] = p
		}
		rows.Close()
		if reflect.DeepEqual(held, named(plans)) {
			return errUnchanged
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM nodegate_plans"); err != nil {
			return fmt.Errorf("replace plans: %w", err)
		}
		for name, p := range plans {
			def, err := json.Marshal(p)
			if err != nil {
				return fmt.Errorf("plan %s: %w", name, err)
			}
			if _, err := tx.ExecContext(ctx, s.q("INSERT INTO nodegate_plans (name, definition) VALUES (?, ?)"), name, string(def)); err != nil {
				return fmt.Errorf("store plan %s: %w", name, err)
			}
		}
		if len(held) > 0 {
			slog.Warn("plans: writing new plans to the key store: every replica applies them within key_refresh", "changed", planDiff(held, plans))
		}
		wrote = true
		return nil
	})
	if err == errUnchanged {
		return false, nil
	}
	return wrote, err
}

type unchanged struct{}

func (unchanged) Error() string { return "plans unchanged" }

// errUnchanged rolls back a publish that would write nothing (and so must
// not bump the counter).
var errUnchanged error = unchanged{}

// named fills each plan's Name from its key, as StoredPlans does.
func named(plans map[string]Plan) map[string]Plan {
	out := make(map[string]Plan, len(plans))
	for n, p := range plans {
		p.Name = n
		out[n] = p
	}
	return out
}

// planDiff names the plans that differ between a and b, for the log.
func planDiff(a, b map[string]Plan) string {
	var names []string
	for n, p := range a {
		if q, ok := b[n]; !ok || !reflect.DeepEqual(p, named(map[string]Plan{n: q})[n]) {
			names = append(names, n)
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// PlansInForce are the store's plans once a replica wrote them, else the
// configured ones: what the CLIs check plan names against.
func PlansInForce(ctx context.Context, st Store, configured map[string]Plan) (map[string]Plan, error) {
	stored, err := st.StoredPlans(ctx)
	if err != nil {
		return nil, err
	}
	if len(stored) > 0 {
		return stored, nil
	}
	return configured, nil
}
