// Package reorgtest is a harness for chains that reorganise (issue 31):
// real go-ethereum members on loopback fed by a Builder, a go-ethereum dev
// node whose simulated beacon makes the blocks and forks of depth 1 to 3
// to longer, equal and shorter chains (builder.go). Each Member imports
// the blocks as engine_newPayload does and moves its head, safe and
// finalized blocks as engine_forkchoiceUpdated does, each after its own
// delay, so that members switch branches at different times (member.go,
// script.go). The Tree is the truth: every block made, its branch
// (generation) and the fork that abandoned it (tree.go). Clients check
// every answer against it at the moment they get it — answers naming an
// abandoned block after the client was given the new branch, heads that
// go back, receipt→block and latest→block mismatches, safe and finalized
// going back, newHeads gaps and repeats, logs removed and left live,
// calls that waited over 200 ms (client.go, subscriber.go) — and add up
// Counts (counts.go). The baseline is a client of the first member alone,
// beside the front's clients; a fleet's run has a second one, a client of
// the first member through another balancer of the fleet's settings
// (Case.Balancer, Result.Balanced): a mismatch is the chain changing
// between a client's two calls, a window the balancer's hop lengthens, so
// a fleet's clients are set against a node reached as they reach the
// fleet. With NODEGATE_REORG_TRACE set each client logs
// every mismatch, answer naming an abandoned block, receipt null after
// seen and call that waited as it counts it, with the times and, in a
// fleet, the replica of each answer (trace.go).
//
// It is for tests only; nothing in the binary imports it. It knows
// nothing of nodegate's insides: a client is given a URL, nodegate's or a
// member's own.
package reorgtest
