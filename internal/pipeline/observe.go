package pipeline

// Observer sees calls go through the pipeline without deciding anything
// (metrics, logs, traces: internal/telemetry). The pipeline asks it once
// per stage of each network's chain; a wrapper it does not want is
// returned as next, unchanged, so that an observer that is off costs
// nothing per call.
type Observer interface {
	// WrapCall wraps a network's whole chain: it sees every call and its
	// answer.
	WrapCall(next Handler) Handler
	// WrapStage wraps one stage (named by its Name: "methodRules", "route"
	// for the last): next is the stage with every later stage behind it.
	WrapStage(name string, next Handler) Handler
}
