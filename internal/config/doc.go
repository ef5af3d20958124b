// Package config is nodegate's typed configuration: a strict YAML file
// (unknown fields are errors) with ${ENV} expansion, defaults, and
// Validate(), which names the path of every bad field. Command-line flags
// override the file; no file at all means the embedded default.
//
// It owns the configuration's defaults, the default plans and their names
// (plans.go) among them, and the plans as they are granted (PlanSet: each
// plan named, with limits.plans, the older spelling of a plan's method
// limits, folded in: limits.go).
//
// It must not start anything: it only describes. It is a leaf: of
// nodegate's packages it imports only ident (the syntactic rules of key
// and identifier formats, shared with keys) and plan (the one plan type,
// which plans: decodes into), never a domain package; mappings from the
// configuration onto a domain package's types live in service
// (service/keyconfig for the key store, service/limits.go for limits).
// TestConfigIsALeaf enforces it.
package config
