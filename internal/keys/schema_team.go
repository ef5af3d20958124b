package keys

// teamSchema is migration 7: an account's team (internal/accounts,
// members.go and changes.go):
//
//   - nodegate_members: the logins that act for an account other than its
//     owner, each with its role (admin or viewer). A login is itself a row
//     of nodegate_accounts (its email and password) and belongs to at most
//     one team (login_id is the key).
//   - nodegate_tokens.account_id, .role: an invitation to join a team
//     (kind "member") names the team and the role it grants.
//   - nodegate_audit: the changes made to an account (who, what, when),
//     kept for auditRetention and at most auditKeep rows per account.
var teamSchema = []string{
	`CREATE TABLE nodegate_members (
		login_id   TEXT PRIMARY KEY,
		account_id TEXT NOT NULL,
		role       TEXT NOT NULL,
		created_at BIGINT NOT NULL
	)`,
	`CREATE INDEX nodegate_members_account ON nodegate_members (account_id)`,
	`ALTER TABLE nodegate_tokens ADD COLUMN account_id TEXT NOT NULL DEFAULT ''`,
	`ALTER TABLE nodegate_tokens ADD COLUMN role TEXT NOT NULL DEFAULT ''`,
	`CREATE TABLE nodegate_audit (
		id         TEXT PRIMARY KEY,
		account_id TEXT NOT NULL,
		at         BIGINT NOT NULL,
		actor      TEXT NOT NULL,
		event      TEXT NOT NULL,
		detail     TEXT NOT NULL
	)`,
	`CREATE INDEX nodegate_audit_account_at ON nodegate_audit (account_id, at)`,
}
