package keys

// tokensSchema is migration 9: the customers' API tokens
// (internal/accounts, apitokens.go): by the SHA-256 of the token (the
// token itself is shown once), with the account, the scope (read or
// manage), who made it and when it ends.
var tokensSchema = []string{
	`CREATE TABLE nodegate_api_tokens (
		hash         TEXT PRIMARY KEY,
		id           TEXT NOT NULL UNIQUE,
		account_id   TEXT NOT NULL,
		name         TEXT NOT NULL,
		scope        TEXT NOT NULL,
		created_by   TEXT NOT NULL,
		created_at   BIGINT NOT NULL,
		expires_at   BIGINT NOT NULL,
		last_used_at BIGINT NOT NULL DEFAULT 0
	)`,
	`CREATE INDEX nodegate_api_tokens_account ON nodegate_api_tokens (account_id)`,
}
