// Package keyscmd is the `nodegate keys` subcommand: create, list, show,
// update and revoke keys in the configured store (the same --config and
// --data-dir as `nodegate serve`), safely while servers run: they pick the
// change up within their key_refresh interval.
//
// It owns flag parsing and output (text for people, --json for scripts).
// Validation and storage are keys.Manager's.
package keyscmd
