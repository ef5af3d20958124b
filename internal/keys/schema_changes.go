package keys

// changesSchema is migration 6: what lets a replica follow key changes
// without reloading every key, and bounds revoked keys (changes_store.go):
//
//   - nodegate_key_changes: one row per change of one key, numbered by the
//     change counter (nodegate_meta.keys_version) that the change bumped.
//     A replica that last saw number n reads the rows after n and reloads
//     only those keys. A bump with no row (plans, an account's plan or
//     status, or a replica older than this version) makes the replicas
//     reload every live key instead. Only the last changeLogKeep rows are
//     kept.
//   - nodegate_keys.revoked_at: when the key was revoked (unix ms; 0 for
//     keys revoked before this version or by an older replica, stamped by
//     the next purge), for the revoked keys' retention.
//   - nodegate_keys_status: the index that lets a full reload read only
//     live keys, however many revoked ones the table holds.
var changesSchema = []string{
	`CREATE TABLE nodegate_key_changes (
		seq    BIGINT PRIMARY KEY,
		key_id TEXT NOT NULL
	)`,
	`ALTER TABLE nodegate_keys ADD COLUMN revoked_at BIGINT NOT NULL DEFAULT 0`,
	`CREATE INDEX nodegate_keys_status ON nodegate_keys (status)`,
	`CREATE INDEX nodegate_keys_account_revoked ON nodegate_keys (account_id, status, revoked_at)`,
}
