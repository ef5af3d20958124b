package main

import (
	"bytes"
	"crypto/tls"
	"github.com/nodegate/nodegate/internal/ingress"
	"github.com/nodegate/nodegate/internal/service"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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

// TestHealthCommandTLS: an https URL served with a leaf of the local CA
// passes when the CA is trusted, through --cacert or because it is the
// data dir's, and fails otherwise.
func TestHealthCommandTLS(t *testing.T) {
	dataDir := t.TempDir()
	ca, err := ingress.OpenLocalCA(service.LocalCADir(dataDir))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	srv.StartTLS()
	defer srv.Close()
	url := srv.URL + "/health"
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"untrusted", []string{"--data-dir", t.TempDir(), url}, 1},
		{"--cacert", []string{"--data-dir", t.TempDir(), "--cacert", ca.Path, url}, 0},
		{"the data dir's CA", []string{"--data-dir", dataDir, url}, 0},
		{"--cacert unreadable", []string{"--cacert", filepath.Join(dataDir, "none.pem"), url}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if got := run(append([]string{"health"}, tc.args...), &out, &errOut); got != tc.want {
				t.Fatalf("exit %d, want %d: %s%s", got, tc.want, out.String(), errOut.String())
			}
		})
	}
}

// TestBadFlagReportedOnce: a bad flag value is one line naming the flag
// and where the flags are listed, not the whole usage between two copies
// of the error.
func TestBadFlagReportedOnce(t *testing.T) {
	for _, args := range [][]string{{"--block-time", "x"}, {"node", "--bogus"}, {"health", "--bogus", "u"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Fatalf("%v: exit %d", args, code)
		}
		msg := errOut.String()
		if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "--help' lists the flags") {
			t.Fatalf("%v: stderr\n%s", args, msg)
		}
	}
}

// TestFlagErrorsNameFieldAndForm: a bad flag value is reported under the
// flag's name with the form it takes, whether the flag package refuses it
// or the config's validation does.
func TestFlagErrorsNameFieldAndForm(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"duration", []string{"--block-time", "x"}, []string{"-block-time", "a duration with its unit, e.g. 500ms"}},
		{"node duration", []string{"node", "--block-time", "2"}, []string{"-block-time", "a duration with its unit"}},
		{"bool", []string{"--access-log=maybe"}, []string{"-access-log", "true or false"}},
		{"negative duration", []string{"--block-time", "-1s"}, []string{"--block-time (config node.block_time): must not be negative"}},
		{"log format", []string{"--log-format", "xml"}, []string{"--log-format (config log.format): want one of text, json"}},
		{"listen", []string{"--listen", "nohost"}, []string{"--listen (config listen): want host:port"}},
		{"upstream", []string{"--upstream", "ftp://x"}, []string{"--upstream (config upstream): want an http(s):// or ws(s):// URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append(tc.args, "--data-dir", t.TempDir())
			if code := run(args, &out, &errOut); code == 0 {
				t.Fatalf("%v: exit 0", tc.args)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut.String(), w) {
					t.Fatalf("%v: %q not in\n%s", tc.args, w, errOut.String())
				}
			}
		})
	}
}
