package keys

// accountsSchema is migration 3: customer accounts (internal/accounts keeps
// them in the key store's database, so that a key and its owner change in
// one transaction and every replica sees both through one change counter).
//
//   - nodegate_keys.account_id: the owning account, ” for operator keys.
//   - nodegate_accounts: the login (normalised email), the argon2id hash of
//     the password, the plan and the status (active, disabled).
//   - nodegate_sessions: signed-in browsers, by the SHA-256 of the cookie's
//     token (never the token itself).
//   - nodegate_tokens: one-time links (invitations, password resets), by
//     the SHA-256 of the link's token.
//   - nodegate_plan_requests: requests for the custom top tier.
//   - nodegate_signin_failures: failed sign-ins per IP and per account in
//     the current window, shared by the replicas.
//   - nodegate_usage.errors_daily: refusals by the daily budget, apart from
//     the rate's (errors_rate_limited from this version on).
var accountsSchema = []string{
	`ALTER TABLE nodegate_keys ADD COLUMN account_id TEXT NOT NULL DEFAULT ''`,
	`CREATE INDEX nodegate_keys_account ON nodegate_keys (account_id)`,
	`CREATE TABLE nodegate_accounts (
		id            TEXT PRIMARY KEY,
		email         TEXT NOT NULL UNIQUE,
		password_hash TEXT NOT NULL,
		plan          TEXT NOT NULL,
		status        TEXT NOT NULL,
		created_at    BIGINT NOT NULL,
		last_login_at BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE TABLE nodegate_sessions (
		hash         TEXT PRIMARY KEY,
		account_id   TEXT NOT NULL,
		created_at   BIGINT NOT NULL,
		last_seen_at BIGINT NOT NULL
	)`,
	`CREATE INDEX nodegate_sessions_account ON nodegate_sessions (account_id)`,
	`CREATE TABLE nodegate_tokens (
		hash       TEXT PRIMARY KEY,
		kind       TEXT NOT NULL,
		email      TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		expires_at BIGINT NOT NULL,
		used_at    BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE TABLE nodegate_plan_requests (
		id         TEXT PRIMARY KEY,
		account_id TEXT NOT NULL,
		plan       TEXT NOT NULL,
		message    TEXT NOT NULL,
		status     TEXT NOT NULL,
		created_at BIGINT NOT NULL,
		decided_at BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE INDEX nodegate_plan_requests_account ON nodegate_plan_requests (account_id)`,
	`CREATE TABLE nodegate_signin_failures (
		subject      TEXT PRIMARY KEY,
		window_start BIGINT NOT NULL,
		failures     BIGINT NOT NULL
	)`,
	`ALTER TABLE nodegate_usage ADD COLUMN errors_daily BIGINT NOT NULL DEFAULT 0`,
}
