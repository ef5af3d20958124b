// Package service assembles a running nodegate from a Config: the embedded
// node or an upstream, the key set, the network, the pipeline and the
// listeners. The binary and the end-to-end tests start nodegate through it.
//
// It wires parts together; the behaviour lives in the parts.
package service
