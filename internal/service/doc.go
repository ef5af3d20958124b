// Package service assembles a running nodegate from a Config: the embedded
// node or an upstream, the key set, the networks (each one's pool, route
// and what its family (internal/family) brings: members and stages, given
// the process's embedded nodes and admission, embedded.go; network.go), the
// pipeline and the listeners. The binary and the end-to-end tests start nodegate through it.
//
// State that must outlive a reload is made once per Service: the key
// cache, the client listeners' connection budget (connBudget), and the admission
// (internal/admission) that counts each key's per-plan caps — calls in
// flight, WebSockets, subscriptions, execution turns on the embedded node
// (executionShare, embedded.go) — which every generation's ingress servers
// and every network's execution stage share (generation.go, network.go).
//
// It wires parts together; the behaviour lives in the parts. The mappings
// from the configuration (a leaf: config imports no domain package) onto
// the parts' own types live here: limits.go for the network's method
// limits, the package keyconfig for the key store and the default plans (a
// package of its own because the CLI's store code needs it too). Plans need
// no mapping: config decodes internal/plan's type (config.Config.PlanSet).
package service
