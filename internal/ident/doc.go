// Package ident holds the syntactic rules of the names nodegate accepts:
// the API key format (32 lowercase hexadecimal characters) and the
// identifier format of plan and network names, and the form of an
// address or CIDR entry (ParsePrefix: keys' address allowlists and
// trusted_proxies). Each rule is written once
// here, so that both the configuration (config, which may import no domain
// package) and the key store (keys) check the same thing.
//
// It is a leaf: it imports only the standard library and knows nothing of
// what the names mean.
package ident
