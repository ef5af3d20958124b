// Package service assembles a running nodegate from a Config: the embedded
// node or an upstream, the key set, the networks (each one's pool, route
// and the stages of its family, with what they hold: network.go), the
// pipeline and the listeners. The binary and the end-to-end tests start nodegate through it.
//
// It wires parts together; the behaviour lives in the parts.
package service
