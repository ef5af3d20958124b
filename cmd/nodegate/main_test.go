package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
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

// TestHealthCommand: exit 0 on a 200, 1 on a 503 or no answer.
func TestHealthCommand(t *testing.T) {
	code := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }))
	defer srv.Close()
	var out, errOut bytes.Buffer
	if got := run([]string{"health", srv.URL + "/ready"}, &out, &errOut); got != 0 {
		t.Fatalf("200: exit %d", got)
	}
	code = http.StatusServiceUnavailable
	if got := run([]string{"health", srv.URL + "/ready"}, &out, &errOut); got != 1 {
		t.Fatalf("503: exit %d", got)
	}
	if got := run([]string{"health", "http://127.0.0.1:1/health"}, &out, &errOut); got != 1 {
		t.Fatalf("no server: exit %d", got)
	}
}
