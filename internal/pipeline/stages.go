package pipeline

// order is THE stage order of a network, the whole chain of every call,
// from the first stage to the route: family is what the network's family
// brings (families.go), route its last stage. Policies come before
// anything that could answer from elsewhere, so that no answer bypasses a
// limit: every family's stages run after the key policy and before the
// session and the route. A call of a client batch carries its place in
// the batch (in its record, from the batch's runner, batch.go) to the route,
// where it waits for the batch's other calls (collect.go).
func order(family []Stage, route Stage) []Stage {
	stages := []Stage{
		recoverStage, // a bug in one call answers -32603 for that call only
		methodRules,  // -32601 for unknown/refused methods, -32602 for bad params
		allowStage,   // 403 -32002 for a network, method or contract the key does not allow
	}
	stages = append(stages, family...) // the family's limits, then what it answers itself (families.go)
	return append(stages,
		sessionStage, // eth_subscribe/eth_unsubscribe answered by the caller's connection (session.go)
		blockFirst,   // a param go-ethereum checks after the block: the node's block error first (deferred.go)
		route,        // the cache, the network's pool (with the call's batch), partner failover (route.go)
	)
}

// The stages every family runs need nothing but the call.
var (
	recoverStage Stage = stageFunc{"recoverStage", recoverCalls}
	methodRules  Stage = stageFunc{"methodRules", checkRules}
	allowStage   Stage = stageFunc{"allowStage", allowKeys}
	sessionStage Stage = stageFunc{"sessionStage", sessionCalls}
	blockFirst   Stage = stageFunc{"blockFirst", nodeErrorFirst}
)
