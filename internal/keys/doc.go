// Package keys holds API keys and plans: what a key may do, looked up from
// memory on the hot path. A key is a 32-character lowercase hex secret that
// nodegate keeps only as its SHA-256.
//
// It must not know about transports or the pipeline: the ingress asks it
// "which key is this", the pipeline asks the key "is this allowed".
package keys
