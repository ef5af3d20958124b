package keys

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// sqlStore is the Store over database/sql; the dialect supplies what
// differs between SQLite and PostgreSQL.
type sqlStore struct {
	db      *sql.DB
	dialect dialect
	name    string
	// analyticsPurged is the minute (unix minutes) of the analytics'
	// last purge (usage_analytics.go).
	analyticsPurged atomic.Int64
}

// dialect is what differs between the SQL databases.
type dialect struct {
	// dollar placeholders ($1) instead of ?.
	dollar bool
	// forUpdate locks the row read by Modify (SQLite locks the database at
	// BEGIN instead).
	forUpdate string
	// lockSchema serialises concurrent migrations inside a transaction.
	lockSchema string
}

// storedSettings is the JSON kept in the settings column: the security
// settings with the secret's hash, which Security hides from JSON.
type storedSettings struct {
	SecretSHA256             string   `json:"secret_sha256,omitempty"`
	SecretRequired           bool     `json:"secret_required,omitempty"`
	SecretBypassesAllowlists bool     `json:"secret_bypasses_allowlists,omitempty"`
	Methods                  []string `json:"methods,omitempty"`
	Contracts                []string `json:"contracts,omitempty"`
	Origins                  []string `json:"origins,omitempty"`
	UserAgents               []string `json:"user_agents,omitempty"`
	IPs                      []string `json:"ips,omitempty"`
	JWTKeys                  []JWTKey `json:"jwt_keys,omitempty"`
	JWTRequired              bool     `json:"jwt_required,omitempty"`
	RatePerSecond            float64  `json:"rate_per_second,omitempty"`
	DailyCredits             int64    `json:"daily_credits,omitempty"`
	// MethodRates: method → calls per second.
	MethodRates map[string]float64 `json:"method_rates,omitempty"`
}

const keyColumns = "id, hash, name, plan, networks, status, created_at, last_used_at, settings, account_id, revoked_at"

// q rewrites ? placeholders for the dialect.
func (s *sqlStore) q(query string) string {
	if !s.dialect.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *sqlStore) Describe() string { return s.name }

func (s *sqlStore) Close() error { return s.db.Close() }

func (s *sqlStore) Insert(ctx context.Context, r Record) error {
	return s.insert(ctx, r, 0)
}

// InsertOwned adds a key of r.Account unless the account already has max
// keys that are not revoked (ErrTooManyKeys). The change counter is bumped
// first: its row lock makes concurrent inserts count one after the other.
func (s *sqlStore) InsertOwned(ctx context.Context, r Record, max int) error {
	if r.Account == "" || max <= 0 {
		return fmt.Errorf("insert key %s: an owned key needs an account and a positive cap", r.ID)
	}
	return s.insert(ctx, r, max)
}

func (s *sqlStore) insert(ctx context.Context, r Record, max int) error {
	args, err := recordArgs(&r)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.bumpFor(ctx, tx, r.ID); err != nil {
			return err
		}
		if max > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, s.q("SELECT COUNT(*) FROM nodegate_keys WHERE account_id = ? AND status <> ?"), r.Account, string(StatusRevoked)).Scan(&n); err != nil {
				return fmt.Errorf("count the account's keys: %w", err)
			}
			if n >= max {
				return fmt.Errorf("%w (%d)", ErrTooManyKeys, max)
			}
		}
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO nodegate_keys ("+keyColumns+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"), args...); err != nil {
			return fmt.Errorf("insert key %s: %w", r.ID, err)
		}
		return nil
	})
}

func (s *sqlStore) List(ctx context.Context) ([]Record, error) {
	return s.queryRecords(ctx, "list keys", "SELECT "+keyColumns+" FROM nodegate_keys ORDER BY created_at, id")
}

func (s *sqlStore) Get(ctx context.Context, id string) (Record, error) {
	r, err := scanRecord(s.db.QueryRowContext(ctx, s.q("SELECT "+keyColumns+" FROM nodegate_keys WHERE id = ?"), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, fmt.Errorf("key %q: %w", id, ErrNotFound)
	}
	return r, err
}

func (s *sqlStore) Modify(ctx context.Context, id string, fn func(*Record) error) (Record, error) {
	var out Record
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		r, err := scanRecord(tx.QueryRowContext(ctx, s.q("SELECT "+keyColumns+" FROM nodegate_keys WHERE id = ?"+s.dialect.forUpdate), id))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("key %q: %w", id, ErrNotFound)
		} else if err != nil {
			return err
		}
		was := r.Status
		if err := fn(&r); err != nil {
			return err
		}
		r.ID = id // the id and hash are the key's identity; fn cannot move them
		revoking := was != StatusRevoked && r.Status == StatusRevoked
		if revoking && r.RevokedAt == nil {
			now := time.Now().UTC().Truncate(time.Millisecond)
			r.RevokedAt = &now
		}
		args, err := recordArgs(&r)
		if err != nil {
			return err
		}
		// args[0] is the id and args[1] the hash, args[9] the owner: none of
		// them moves. Update the rest.
		if _, err := tx.ExecContext(ctx, s.q("UPDATE nodegate_keys SET name = ?, plan = ?, networks = ?, status = ?, created_at = ?, last_used_at = ?, settings = ?, revoked_at = ? WHERE id = ?"), append(args[2:9], args[10], id)...); err != nil {
			return fmt.Errorf("update key %s: %w", id, err)
		}
		out = r
		if err := s.bumpFor(ctx, tx, id); err != nil {
			return err
		}
		if revoking && r.Account != "" {
			return s.purgeAccountRevoked(ctx, tx, r.Account, *r.RevokedAt)
		}
		return nil
	})
	return out, err
}

func (s *sqlStore) Version(ctx context.Context) (int64, error) {
	var v int64
	if err := s.db.QueryRowContext(ctx, "SELECT value FROM nodegate_meta WHERE name = 'keys_version'").Scan(&v); err != nil {
		return 0, fmt.Errorf("read key change counter: %w", err)
	}
	return v, nil
}

func (s *sqlStore) RecordUse(ctx context.Context, used map[string]int64) error {
	if len(used) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, s.q("UPDATE nodegate_keys SET last_used_at = ? WHERE id = ? AND last_used_at < ?"))
		if err != nil {
			return fmt.Errorf("record key use: %w", err)
		}
		defer stmt.Close()
		// In the order of the ids, so that two replicas recording the same
		// keys at once lock their rows in one order (no deadlock).
		for _, id := range slices.Sorted(maps.Keys(used)) {
			ms := used[id] * 1000
			if _, err := stmt.ExecContext(ctx, ms, id, ms); err != nil {
				return fmt.Errorf("record key use: %w", err)
			}
		}
		return nil
	})
}

func (s *sqlStore) bump(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "UPDATE nodegate_meta SET value = value + 1 WHERE name = 'keys_version'"); err != nil {
		return fmt.Errorf("bump key change counter: %w", err)
	}
	return nil
}

func (s *sqlStore) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("key store %s: %w", s.name, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("key store %s: commit: %w", s.name, err)
	}
	return nil
}

// recordArgs are a record's column values in keyColumns order. Times are
// unix milliseconds (portable between the databases); last_used_at 0 is never.
func recordArgs(r *Record) ([]any, error) {
	nets, err := json.Marshal(orEmpty(r.Networks))
	if err != nil {
		return nil, fmt.Errorf("encode networks: %w", err)
	}
	st := storedSettings{
		SecretRequired:           r.Security.SecretRequired,
		SecretBypassesAllowlists: r.Security.SecretBypassesAllowlists,
		Methods:                  r.Security.Methods,
		Contracts:                r.Security.Contracts,
		Origins:                  r.Security.Origins,
		UserAgents:               r.Security.UserAgents,
		IPs:                      r.Security.IPs,
		JWTKeys:                  r.Security.JWTKeys,
		JWTRequired:              r.Security.JWTRequired,
		RatePerSecond:            r.RatePerSecond,
		DailyCredits:             r.DailyCredits,
		MethodRates:              r.MethodRates,
	}
	if r.Security.SecretHash != nil {
		st.SecretSHA256 = hex.EncodeToString(r.Security.SecretHash[:])
	}
	settings, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode settings: %w", err)
	}
	var lastUsed, revoked int64
	if r.LastUsedAt != nil {
		lastUsed = r.LastUsedAt.UnixMilli()
	}
	if r.RevokedAt != nil {
		revoked = r.RevokedAt.UnixMilli()
	}
	return []any{r.ID, hex.EncodeToString(r.Hash[:]), r.Name, r.Plan, string(nets), string(r.Status), r.CreatedAt.UnixMilli(), lastUsed, string(settings), r.Account, revoked}, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanRecord(sc scanner) (Record, error) {
	var (
		r                   Record
		hash, nets, st, sts string
		created, lastUsed   int64
		revoked             int64
	)
	if err := sc.Scan(&r.ID, &hash, &r.Name, &r.Plan, &nets, &sts, &created, &lastUsed, &st, &r.Account, &revoked); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return r, err
		}
		return r, fmt.Errorf("read key: %w", err)
	}
	if b, err := hex.DecodeString(hash); err != nil || len(b) != len(r.Hash) {
		return r, fmt.Errorf("key %s: corrupt hash in store", r.ID)
	} else {
		copy(r.Hash[:], b)
	}
	if err := json.Unmarshal([]byte(nets), &r.Networks); err != nil {
		return r, fmt.Errorf("key %s: corrupt networks in store: %w", r.ID, err)
	}
	var settings storedSettings
	if err := json.Unmarshal([]byte(st), &settings); err != nil {
		return r, fmt.Errorf("key %s: corrupt settings in store: %w", r.ID, err)
	}
	r.Status = Status(sts)
	r.RatePerSecond, r.DailyCredits, r.MethodRates = settings.RatePerSecond, settings.DailyCredits, settings.MethodRates
	r.CreatedAt = time.UnixMilli(created).UTC()
	if lastUsed > 0 {
		t := time.UnixMilli(lastUsed).UTC()
		r.LastUsedAt = &t
	}
	if revoked > 0 {
		t := time.UnixMilli(revoked).UTC()
		r.RevokedAt = &t
	}
	r.Security = Security{
		SecretRequired:           settings.SecretRequired,
		SecretBypassesAllowlists: settings.SecretBypassesAllowlists,
		Methods:                  settings.Methods,
		Contracts:                settings.Contracts,
		Origins:                  settings.Origins,
		UserAgents:               settings.UserAgents,
		IPs:                      settings.IPs,
		JWTKeys:                  settings.JWTKeys,
		JWTRequired:              settings.JWTRequired,
	}
	if settings.SecretSHA256 != "" {
		b, err := hex.DecodeString(settings.SecretSHA256)
		if err != nil || len(b) != len(Hash{}) {
			return r, fmt.Errorf("key %s: corrupt secret hash in store", r.ID)
		}
		var h Hash
		copy(h[:], b)
		r.Security.SecretHash = &h
	}
	r.normalize()
	return r, nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
