package starknet

// Hooks for the tests over the devnet (pending_devnet_test.go), which are
// in package starknet_test because internal/starknet/devnet imports this
// package.
var (
	StartNode          = startNode
	CheckPendingObject = checkPendingObject
)

// PreConfirmed reports whether p asks for "pre_confirmed" (Starknet 0.9).
func PreConfirmed(p *Pending) bool { return p.preConfirmed.Load() }
