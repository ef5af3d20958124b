// Package service assembles a running nodegate from a Config: the embedded
// node or an upstream, the key set, the networks (each one's pool, route
// and the stages of its family, with what they hold: network.go), the
// pipeline and the listeners. The binary and the end-to-end tests start nodegate through it.
//
// It wires parts together; the behaviour lives in the parts. The mappings
// from the configuration (a leaf: config imports no domain package) onto
// the parts' own types live here: limits.go for the network's method
// limits, the package keyconfig for the key store and the default plans (a
// package of its own because the CLI's store code needs it too). Plans need
// no mapping: config decodes internal/plan's type (config.Config.PlanSet).
package service
