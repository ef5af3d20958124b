package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Program returns the path of the first of names found on PATH. When none
// is, the test fails under CI and is skipped elsewhere; why says what the
// program is needed for.
func Program(t testing.TB, why string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	missing := strings.Join(names, " or ")
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed and %s needs it (CI is set: .ci/run installs it)", missing, why)
	}
	t.Skipf("%s is not installed (%s; under CI this is a failure)", missing, why) // not under CI: it failed just above
	return ""
}
