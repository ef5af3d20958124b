package logging

import (
	"strings"
	"testing"
)

func TestRedactURLs(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"postgres", `key store postgres://nodegate:s3cret@db.internal:5432/keys: dial: refused`, `key store postgres://nodegate:xxxxx@db.internal:5432/keys: dial: refused`},
		{"two urls", `a redis://:pw@r:6379/0 b postgres://u:p%40ss@h/db`, `a redis://:xxxxx@r:6379/0 b postgres://u:xxxxx@h/db`},
		{"user only", `postgres://nodegate@h/db`, `postgres://nodegate@h/db`},
		{"no url", `connection refused`, `connection refused`},
		{"host and port, no user", `dial tcp 127.0.0.1:5432: refused`, `dial tcp 127.0.0.1:5432: refused`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := RedactURLs(tc.in); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzRedactURLs: a password put in a URL inside any text is gone after.
func FuzzRedactURLs(f *testing.F) {
	f.Add("err: ", "nodegate", "s3cret", " tail")
	f.Add("", "", "pw", "")
	f.Fuzz(func(t *testing.T, before, user, password, after string) {
		// Inputs that do not make a URL with a password (or whose password
		// is part of the mask) say nothing: they pass.
		if password == "" || strings.ContainsAny(user, ":/@ \t\n\r\v\f\u0085\u00a0") || strings.ContainsAny(password, "@/ \t\n\r\v\f\u0085\u00a0") || strings.Contains("xxxxx", password) {
			return
		}
		in := before + "postgres://" + user + ":" + password + "@host/db" + after
		out := RedactURLs(in)
		if strings.Contains(out, "://"+user+":"+password+"@") {
			t.Fatalf("password kept: %q → %q", in, out)
		}
	})
}
