package accounts

import (
	"errors"
	"fmt"
)

// InputError is refused input, with a message naming the field: pages
// show it next to the form, the admin API answers 400, the CLI exits 2.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputf(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

// IsInput reports whether err is refused input.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// Errors that pages and the APIs answer with their own status.
var (
	// ErrNotFound: no such account, request, or a key the account does
	// not own (the same answer, so that ids of others say nothing).
	ErrNotFound = errors.New("not found")
	// ErrBadCredentials: a wrong email or password (never which).
	ErrBadCredentials = errors.New("wrong email or password")
	// ErrNoSession: no session, or one that ended.
	ErrNoSession = errors.New("not signed in, or the session ended: sign in again")
	// ErrDisabled: the account is disabled by the operator.
	ErrDisabled = errors.New("this account is disabled: ask the operator of this service")
	// ErrBusy: too many passwords are being checked at once; nothing was
	// checked or changed (pages answer 429 with Retry-After).
	ErrBusy = errors.New("too many sign-ins at once: try again in a few seconds")
)

// LimitedError refuses a sign-in over its limits for a while.
type LimitedError struct {
	// What was limited: "this address" or "this account".
	What string
	// RetryAfter is when a try may succeed again (whole seconds, >= 1).
	RetryAfterSeconds int64
}

func (e *LimitedError) Error() string {
	return fmt.Sprintf("too many failed sign-ins from %s: try again in %d seconds (or reset the password)", e.What, e.RetryAfterSeconds)
}
