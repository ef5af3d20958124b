// Package jsonrpc is nodegate's wire model for JSON-RPC 2.0: requests and
// batches parsed from raw bytes, ids kept byte for byte, results carried as
// raw JSON, and typed errors that know their code, data and HTTP status.
//
// It owns encoding and decoding of envelopes only. It must not know about
// keys, networks, methods or upstreams.
package jsonrpc
