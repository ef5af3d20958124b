package pipeline

// order is THE stage order. Policies come before anything that could answer
// from elsewhere, so that no answer bypasses a limit. The route stage is the
// end of the chain and is added by Build.
func order() []Stage {
	return []Stage{
		recoverStage, // a bug in one call answers -32603 for that call only
		methodRules,  // -32601 for unknown/refused methods, -32602 for bad params
		allowStage,   // 403 -32002 for a network, method or contract the key does not allow
		// limits
		getLogsLimits,   // eth_getLogs: -32005 over the parameter, result or duration limit
		filterLimits,    // filters: the installing key's only; log filters under eth_getLogs's limits (filters.go)
		gasCap,          // eth_call/eth_estimateGas: gas lowered to the cap
		executionLimits, // eth_call/eth_estimateGas: the key's share of local CPUs, the plan's call_timeout (execution.go)
		sessionStage,    // eth_subscribe/eth_unsubscribe answered by the caller's connection (session.go)
		blockFirst,      // a param go-ethereum checks after the block: the node's block error first (deferred.go)
	}
}
