package limits

// Sub-range sizing. A wide range is asked in sub-ranges so that nodegate
// stops as soon as the log over the limit is seen and never holds much more
// than the limit in memory. Each sub-range is sized from the log density of
// the one before: aimed at the logs still wanted (at most chunkLogs, which
// bounds one sub-answer), growing geometrically over empty stretches.
const (
	// firstSpan is the first sub-range's width, and the widest range that
	// is sent whole in one call.
	firstSpan = 64
	// maxSpan bounds one sub-range, so that one call stays short.
	maxSpan = 1 << 20
	// growth bounds how fast sub-ranges widen from one to the next.
	growth = 8
	// chunkLogs is the most logs a sub-range is aimed at.
	chunkLogs = 5000
)

// sizer picks the width of the next sub-range.
type sizer struct {
	span    uint64
	density float64 // logs per block of the last sub-range
	seen    bool
}

func newSizer() sizer { return sizer{span: firstSpan} }

// observe records what the last sub-range returned.
func (z *sizer) observe(blocks uint64, logs int) {
	z.seen = true
	z.density = 0
	if blocks > 0 && logs > 0 {
		z.density = float64(logs) / float64(blocks)
	}
}

// next returns the width of the next sub-range, for want more logs (want
// counts the log over the limit too: seeing it is what ends the search).
func (z *sizer) next(want int) uint64 {
	if !z.seen {
		return z.span
	}
	ceiling := min(z.span*growth, maxSpan)
	if z.density == 0 {
		z.span = ceiling
		return z.span
	}
	w := float64(min(max(want, 1), chunkLogs)) / z.density
	switch {
	case w < 1:
		z.span = 1
	case w > float64(ceiling):
		z.span = ceiling
	default:
		z.span = uint64(w)
	}
	return z.span
}
