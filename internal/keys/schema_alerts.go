package keys

// alertsSchema is migration 8: alerts on an account's daily credits
// (internal/accounts, alerts*.go):
//
//   - nodegate_alert_settings: per account, a threshold of its own (a
//     percent, 0 for none), whether alerts are mailed, and the webhook
//     (an https URL and the secret its signatures are made with).
//   - nodegate_alerts_sent: one row per account, UTC day and threshold
//     crossed; its primary key is the claim that makes an alert go out
//     exactly once across a fleet. Rows older than two days are deleted.
//   - nodegate_alert_deliveries: each mail or webhook POST of an alert,
//     retried with backoff until delivered or failed; kept 30 days.
var alertsSchema = []string{
	`CREATE TABLE nodegate_alert_settings (
		account_id     TEXT PRIMARY KEY,
		custom_percent BIGINT NOT NULL DEFAULT 0,
		mail           BIGINT NOT NULL DEFAULT 1,
		webhook_url    TEXT NOT NULL DEFAULT '',
		webhook_secret TEXT NOT NULL DEFAULT ''
	)`,
	`CREATE TABLE nodegate_alerts_sent (
		account_id TEXT NOT NULL,
		day        TEXT NOT NULL,
		threshold  BIGINT NOT NULL,
		created_at BIGINT NOT NULL,
		PRIMARY KEY (account_id, day, threshold)
	)`,
	`CREATE TABLE nodegate_alert_deliveries (
		id         TEXT PRIMARY KEY,
		account_id TEXT NOT NULL,
		kind       TEXT NOT NULL,
		target     TEXT NOT NULL,
		threshold  BIGINT NOT NULL,
		body       TEXT NOT NULL,
		status     TEXT NOT NULL,
		attempts   BIGINT NOT NULL DEFAULT 0,
		next_at    BIGINT NOT NULL,
		last_error TEXT NOT NULL DEFAULT '',
		created_at BIGINT NOT NULL
	)`,
	`CREATE INDEX nodegate_alert_deliveries_due ON nodegate_alert_deliveries (status, next_at)`,
	`CREATE INDEX nodegate_alert_deliveries_account ON nodegate_alert_deliveries (account_id, created_at)`,
}
