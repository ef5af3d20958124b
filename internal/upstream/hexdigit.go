package upstream

// HexDigit is the value of one hex digit, either case, and whether c is
// one: how an answer's hashes and quantities are read without allocating
// (answerblock.go), and a Starknet felt (internal/starknet).
func HexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
