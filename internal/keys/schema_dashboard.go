package keys

// dashboardSchema is migration 5: what the dashboard's hardening keeps
// (internal/accounts owns the rules):
//
//   - nodegate_known_addresses: the client addresses (IPv4, or an IPv6
//     /64) an account signed in from successfully; failures from these are
//     counted apart from strangers', so that a stranger cannot lock the
//     owner out.
//   - nodegate_mail_counts: mails sent per recipient in the current hour
//     (password resets, sign-up links), shared by the replicas.
var dashboardSchema = []string{
	`CREATE TABLE nodegate_known_addresses (
		account_id TEXT NOT NULL,
		subject    TEXT NOT NULL,
		last_at    BIGINT NOT NULL,
		PRIMARY KEY (account_id, subject)
	)`,
	`CREATE TABLE nodegate_mail_counts (
		subject      TEXT PRIMARY KEY,
		window_start BIGINT NOT NULL,
		sent         BIGINT NOT NULL
	)`,
}
