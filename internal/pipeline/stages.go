package pipeline

// order is THE stage order of a network whose family brings family
// (families.go). Policies come before anything that could answer from
// elsewhere, so that no answer bypasses a limit: every family's stages run
// after the key policy and before the session and the route. The route
// stage is the end of the chain and is added by the pipeline (pipeline.go).
func order(family []Stage) []Stage {
	stages := []Stage{
		recoverStage, // a bug in one call answers -32603 for that call only
		methodRules,  // -32601 for unknown/refused methods, -32602 for bad params
		allowStage,   // 403 -32002 for a network, method or contract the key does not allow
	}
	stages = append(stages, family...) // the family's limits, then what it answers itself (families.go)
	return append(stages,
		sessionStage, // eth_subscribe/eth_unsubscribe answered by the caller's connection (session.go)
		blockFirst,   // a param go-ethereum checks after the block: the node's block error first (deferred.go)
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
