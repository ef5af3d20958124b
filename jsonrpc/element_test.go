package jsonrpc

import "testing"

func TestElement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		b    string
		i    int
		want string // "" for nil
	}{
		{"first", `[{"a":1}, 2]`, 0, `{"a":1}`},
		{"second", `[{"a":1}, 2]`, 1, `2`},
		{"past the end", `[1]`, 1, ""},
		{"empty array", `[]`, 0, ""},
		{"not an array", `{"a":1}`, 0, ""},
		{"nested arrays count once", `[[1,2],[3]]`, 1, `[3]`},
		{"strings with commas", `["a,b","c"]`, 1, `"c"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Element([]byte(tc.b), tc.i); string(got) != tc.want || (tc.want == "") != (got == nil) {
				t.Fatalf("Element(%s, %d) = %q, want %q", tc.b, tc.i, got, tc.want)
			}
		})
	}
}
