package methods

// EachCost calls fn with every method of this table's family that has an
// entry of its own, and its credits (a method without one costs
// DefaultCredits).
func (t *Table) EachCost(fn func(method string, credits int)) {
	for name, r := range t.rules {
		if r.Family == t.family {
			fn(name, r.Credits)
		}
	}
	fn("", DefaultCredits)
}
