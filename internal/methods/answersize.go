package methods

// LargeAnswer reports whether method's answer may be very large: a rule
// marked LargeAnswer (the log queries), and any method outside the known
// set (Label), whose answer's size nothing tells. A batch's answer budget
// holds these back until the sizes of the first answers are known
// (internal/pipeline/batch.go); the other calls of a batch start at once,
// so that they can meet at the route and go upstream as one batch. It
// reads the name alone: a batch decides before the method-rules stage.
func LargeAnswer(method string) bool {
	r, ok := known[method]
	return !ok || r != nil && r.LargeAnswer
}
