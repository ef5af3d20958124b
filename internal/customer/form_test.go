package customer

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitList(t *testing.T) {
	for _, c := range []struct {
		name   string
		in     string
		commas bool
		want   []string
	}{
		{"lines", "a\nb\r\nc", true, []string{"a", "b", "c"}},
		{"commas", "a, b,c", true, []string{"a", "b", "c"}},
		{"commas kept", "Mozilla/5.0 (X11, Linux)\ncurl", false, []string{"Mozilla/5.0 (X11, Linux)", "curl"}},
		{"blanks dropped", "\n  \n a \n", true, []string{"a"}},
		{"empty clears", "", true, []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := splitList(c.in, c.commas); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("splitList(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// FuzzSplitList: entries are trimmed, never empty, never hold a line
// break (nor a comma when commas separate).
func FuzzSplitList(f *testing.F) {
	f.Add("a,b\nc", true)
	f.Add(" x \r\n\n", false)
	f.Fuzz(func(t *testing.T, s string, commas bool) {
		for _, e := range splitList(s, commas) {
			if e == "" || e != strings.TrimSpace(e) || strings.ContainsAny(e, "\r\n") || (commas && strings.Contains(e, ",")) {
				t.Fatalf("splitList(%q, %v) gave entry %q", s, commas, e)
			}
		}
	})
}

func TestFormatInt(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 3000000: "3,000,000", -1234: "-1,234"} {
		if got := formatInt(in); got != want {
			t.Errorf("formatInt(%d) = %q, want %q", in, got, want)
		}
	}
}
