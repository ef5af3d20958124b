// Package accounts holds nodegate's customers: accounts (an email as the
// login, an argon2id password hash, a plan, a status), their browser
// sessions, one-time links (invitations, password resets), requests for
// the custom top tier, sign-in limits, and the mail that carries links.
// It owns the audit log of those (audit.go: one slog line per event with
// a fixed event attribute), the bound on password hashes waiting
// (password.go), the reservation of sign-in attempts before hashing and
// the addresses an account signed in from (signin.go), the mail sent
// after a page answered and its per-recipient bound (mailjobs.go), and
// the operator's unlock and reset links (operator.go), an account's team
// (members.go: logins invited as admin or viewer, the account's own login
// its owner), the one rule of what each role may do (roles.go), and the
// changes its team reads on the audit page (changes.go), the analytics an
// account reads per period (analytics.go: requests, credits, latency
// percentiles per method, errors by kind and code), and the alerts
// on an account's daily credits: settings (alerts.go), the claim that
// sends each once across a fleet (alerts_check.go), the deliveries by
// mail and signed webhook with their retries (alerts_deliver.go,
// signature.go).
//
// It owns the rules of those: who may sign up (the signup policy), what a
// password and an email must be, how long a session lives, how many keys
// an account may have, which plan an account may move itself to. Its
// tables live in the key store's database (keys.SQL; schema in
// internal/keys/schema_accounts.go), so that an account's plan or status
// and its keys change in one transaction and reach every replica through
// the keys' change counter.
//
// It must not serve HTTP (internal/customer and internal/admin do) nor
// know about requests to nodes: the keys an account owns are keys.Records
// made and changed through keys.Manager.
package accounts
