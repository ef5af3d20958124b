package observe_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// definedMetrics are the nodegate_ series defined in the Go sources.
func definedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	def := regexp.MustCompile(`(?:Name: |NewDesc\()"(nodegate_[a-z_]+)"`)
	out := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range def.FindAllStringSubmatch(string(src), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("found only %d metric definitions: %v", len(out), out)
	}
	return out
}

// TestEveryMetricIsDocumented: docs/observability.md names every series.
func TestEveryMetricIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range definedMetrics(t) {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/observability.md does not list %s", name)
		}
	}
}

// TestGrafanaDashboardUsesRealMetrics: the Grafana dashboard is valid JSON
// and every series its queries name exists.
func TestGrafanaDashboardUsesRealMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/grafana/nodegate.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	defined := definedMetrics(t)
	used := regexp.MustCompile(`nodegate_[a-z_]+`)
	n := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, name := range used.FindAllString(tg.Expr, -1) {
				n++
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
				if !defined[base] {
					t.Errorf("panel %q queries %s, which nodegate does not export", p.Title, name)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("the dashboard queries only %d series", n)
	}
}
