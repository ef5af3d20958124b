package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpListsCommands: --help, -h and help list the commands, not only
// serve's flags.
func TestHelpListsCommands(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		var out, errOut bytes.Buffer
		if code := run([]string{arg}, &out, &errOut); code != 0 {
			t.Fatalf("%s: exit %d", arg, code)
		}
		for _, want := range []string{"nodegate node", "nodegate keys", "nodegate version", "serve --help"} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("%s: %q missing from\n%s", arg, want, out.String())
			}
		}
	}
}
