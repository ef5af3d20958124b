// Package probes is issue 29's held-out probes as one harness: each probe
// attacks a nodegate started in process (real listeners on 127.0.0.1,
// the embedded go-ethereum node and Starknet devnet, SQLite and
// PostgreSQL key stores) the way a hostile client would, over real HTTP,
// asserts its target where the target is not a wall-clock figure, and
// reports its figures; TestHeldOutProbes prints them all in one table.
//
// The probes are bounded in count and time: a short form by default (what
// CI runs), the full figures of the issue with NODEGATE_PROBES_LONG=1.
// Each probe reuses what the package that owns the rule tests (named in
// its comment); this package owns only the probes and their figures.
//
// It is test support: nothing in the binary imports it, and it must not
// reach into the packages it probes beyond their exported API.
package probes
