package accounts

import (
	"context"
	"log/slog"
)

// The audit log: one slog line at Info per event, message "audit", with a
// fixed event attribute (docs/dashboard.md lists them). Lines name
// accounts, emails and client addresses, never a password, a token or a
// key.
const (
	EventSignin         = "signin"
	EventSigninFailed   = "signin_failed"
	EventSigninLimited  = "signin_limited"
	EventUnlocked       = "account_unlocked"
	EventResetRequested = "reset_requested"
	EventResetMailed    = "reset_mailed"
	EventResetLimited   = "reset_limited"
	EventPasswordReset  = "password_reset"
	EventPasswordSet    = "password_set"
	EventSignupMailed   = "signup_mailed"
	EventAccountCreated = "account_created"
	EventKeyCreated     = "key_created"
	EventKeyChanged     = "key_changed"
	EventKeyRevoked     = "key_revoked"
	EventStatusChanged  = "account_status"
	EventAlertClaimed   = "alert_claimed"
	EventAlertDelivery  = "alert_delivery"
)

// audit writes one audit line.
func audit(ctx context.Context, event string, attrs ...any) {
	slog.Default().Log(ctx, slog.LevelInfo, "audit", append([]any{"event", event}, attrs...)...)
}
