package methods

// largeAnswers are the methods whose answers the gateway knows can run to
// tens of megabytes on a busy chain (a block's or a range's logs).
var largeAnswers = map[string]bool{
	"eth_getLogs": true, "eth_getFilterLogs": true, "eth_getFilterChanges": true,
}

// LargeAnswer reports whether method's answer may be very large: the log
// queries, and any method outside the known set (Label), whose answer's
// size nothing tells. A batch's answer budget holds these back until the
// sizes of the first answers are known (internal/pipeline/batch.go); the
// other calls of a batch start at once, so that they can meet at the route
// and go upstream as one batch.
func LargeAnswer(method string) bool {
	return largeAnswers[method] || !knownNames[method]
}
