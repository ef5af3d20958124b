// Package admission owns the per-key caps a key's plan grants on one
// nodegate process: its calls in flight (max_in_flight, HTTP and WebSocket
// together, and the work an answered call leaves running: Hold), its open WebSockets (max_ws_connections), its live
// subscriptions (max_subscriptions), its keyed client connections
// (max_connections, HTTP and WebSocket together: connections.go) and its execution turns (its share of
// this process's CPUs for the methods that run code on the embedded node).
// It also defines what an account is (account.go: Account), the one
// notion every share between accounts uses (the execution turns, the
// embedded chain's bytes), and carries a call's account in its context
// (WithCaller, AccountOf) to the components reached through a context only.
//
// One Keys value is made per process (internal/service) and given to every
// ingress server (one per client listener and per reload generation) and
// to the pipeline's execution stage of every network, so that a key's caps
// are counted once per process: across listeners, networks and reloads,
// never once per server. Each cap's limit is read from the key's plan here
// and nowhere else, and each refusal (its code, HTTP status, message and
// data) is made here.
//
// It counts and refuses; it must not do I/O, know a transport, a network
// or a method, or keep anything but counts and, for the execution turns,
// how long each account's recent calls held their slots (bounded:
// runtimes.go), from which it refuses at once a call that could not start
// in time to run: the callers decide what a refusal ends (a request, an
// upgrade, an eth_subscribe) and when a use is given back.
package admission
