// Package keys holds API keys and plans: what a key may do, looked up from
// memory on the hot path. A key is a 32-character lowercase hex secret that
// nodegate keeps only as its SHA-256.
//
// It owns: the Key and its security settings (secret, allowlists, the
// client address allowlist: ipallow.go; JSON Web Tokens: the public keys,
// jwtkeys.go, the check and its verdict cache, token.go, and what a
// token's claims narrow, narrowing.go), its own limits (limits.go: rate,
// daily credits, per-method rates, and the names of the limit in force), plans,
// the persistent stores (SQLite by default, PostgreSQL for fleets) with
// their versioned schema, the usage records and their analytics (usage.go;
// usage_analytics.go: minutes, latency histograms in the fixed buckets of
// latency.go that replicas' counts add up in, error codes, and their
// retention), the in-memory Cache that serves lookups and
// follows store changes (by the change log: only the changed keys are
// read, cache_follow.go, changes_store.go), the bounds on revoked keys
// (an account's are capped and purged after a retention), and the Manager that creates, updates and revokes
// keys for the CLI and the admin API (and applies each change to this
// process's Cache at once: Manager.Changed).
//
// Plans are given to it resolved: keys.Plan is internal/plan's type, the
// one the configuration decodes (config.Config.PlanSet) and the store keeps
// whole (plans_store.go: a replica's file only seeds a store that holds
// none, SeedPlans; `nodegate plans push` changes them); the key format and plan/network name rules are
// ident's.
//
// It must not know about transports or the pipeline: the ingress asks it
// "which key is this" and "may this request use it", the pipeline asks the
// key "is this method, address, network allowed".
package keys
