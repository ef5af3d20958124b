package docexamples

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// figuresMarker is the comment on the line before the README's one table of
// performance figures.
const figuresMarker = "<!-- figures: docs/bench.md -->"

// figure is a number as the docs print it: 47.8, 166,818, 0.00006, 2026-11-24.
var figure = regexp.MustCompile(`\d+(?:[.,-]\d+)*`)

// figuresTable returns the rows of the table after figuresMarker in doc.
func figuresTable(doc string) ([]string, bool) {
	_, after, ok := strings.Cut(doc, figuresMarker+"\n")
	if !ok {
		return nil, false
	}
	var rows []string
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "|") {
			break
		}
		rows = append(rows, l)
	}
	return rows, len(rows) > 2
}

// missingFigures lists the figures of rows that source does not hold as a
// whole number (47.8 is not found in 147.8 or 47.85).
func missingFigures(rows []string, source string) []string {
	var missing []string
	for _, row := range rows {
		for _, f := range figure.FindAllString(row, -1) {
			at := regexp.MustCompile(`(^|[^\d.,-])` + regexp.QuoteMeta(f) + `($|[^\d]|[.,]($|[^\d]))`)
			if !at.MatchString(source) {
				missing = append(missing, f)
			}
		}
	}
	return missing
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREADMEFiguresInBench: every figure of the README's performance table
// (numbers and dates) is one docs/bench.md holds, and the docs that speak
// of a call's cost cite that table's figure instead of numbers of their own.
func TestREADMEFiguresInBench(t *testing.T) {
	readme, bench := readDoc(t, "README.md"), readDoc(t, "docs/bench.md")
	rows, ok := figuresTable(readme)
	if !ok {
		t.Fatalf("README.md has no table after %s", figuresMarker)
	}
	if missing := missingFigures(rows[2:], bench); len(missing) > 0 {
		t.Errorf("README.md's figures not in docs/bench.md: %v", missing)
	}
	table := strings.Join(rows, "\n")
	cite := regexp.MustCompile(`\(([\d.–]+ µs): the README's\s+"Load tool and performance" table\)`)
	for _, name := range []string{"docs/pools.md", "docs/observability.md"} {
		t.Run(name, func(t *testing.T) {
			m := cite.FindAllStringSubmatch(readDoc(t, name), -1)
			if len(m) == 0 {
				t.Fatalf("%s cites no figure of the README's table", name)
			}
			for _, c := range m {
				if !strings.Contains(table, strings.TrimSuffix(c[1], " µs")) {
					t.Errorf("%s cites %s, not in the README's table", name, c[1])
				}
			}
		})
	}
}

// TestMissingFigures: the check finds a figure bench.md lacks and not one
// it holds, whole numbers only.
func TestMissingFigures(t *testing.T) {
	source := "CPU 47.8 / 52.0 µs (mean 1.01), 166,818 calls, 2026-11-24."
	for _, tc := range []struct {
		name, row string
		want      []string
	}{
		{"held", "| 47.8–52.0 µs | 1.01 | 166,818 | 2026-11-24 |", nil},
		{"not held", "| 45–53 µs |", []string{"45", "53"}},
		{"part of a larger number", "| 7.8 | 1.0 | 2026-11-2 |", []string{"7.8", "1.0", "2026-11-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := missingFigures([]string{tc.row}, source)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("missing %v, want %v", got, tc.want)
			}
		})
	}
}
