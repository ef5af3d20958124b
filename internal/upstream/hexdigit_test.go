package upstream

import "testing"

// TestHexDigit: the sixteen digits in either case, and what is not one.
func TestHexDigit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   byte
		want byte
		ok   bool
	}{
		{"zero", '0', 0, true},
		{"nine", '9', 9, true},
		{"lower a", 'a', 10, true},
		{"lower f", 'f', 15, true},
		{"upper A", 'A', 10, true},
		{"upper F", 'F', 15, true},
		{"g", 'g', 0, false},
		{"G", 'G', 0, false},
		{"x", 'x', 0, false},
		{"slash, below 0", '/', 0, false},
		{"colon, above 9", ':', 0, false},
		{"at, below A", '@', 0, false},
		{"backquote, below a", '`', 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := HexDigit(tc.in); got != tc.want || ok != tc.ok {
				t.Fatalf("HexDigit(%q) = %d, %v", tc.in, got, ok)
			}
		})
	}
}
