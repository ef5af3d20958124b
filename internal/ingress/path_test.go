package ingress

import (
	"strings"
	"testing"
)

func TestAPIVersion(t *testing.T) {
	tests := []struct{ name, path, rest, version string }{
		{name: "no version", path: "/v3/KEY", rest: "/v3/KEY"},
		{name: "v0_8", path: "/v3/KEY/rpc/v0_8", rest: "/v3/KEY", version: "v0_8"},
		{name: "v0_10", path: "/v3/KEY/rpc/v0_10", rest: "/v3/KEY", version: "v0_10"},
		{name: "not a version", path: "/v3/KEY/rpc/latest", rest: "/v3/KEY/rpc/latest"},
		{name: "dotted", path: "/v3/KEY/rpc/v0.8", rest: "/v3/KEY/rpc/v0.8"},
		{name: "no minor", path: "/v3/KEY/rpc/v0_", rest: "/v3/KEY/rpc/v0_"},
		{name: "trailing slash", path: "/v3/KEY/rpc/v0_8/", rest: "/v3/KEY/rpc/v0_8/"},
		{name: "too long", path: "/v3/KEY/rpc/v0_" + strings.Repeat("1", 20), rest: "/v3/KEY/rpc/v0_" + strings.Repeat("1", 20)},
		{name: "ws", path: "/ws/v3/KEY/rpc/v0_8", rest: "/ws/v3/KEY", version: "v0_8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest, v := apiVersion(tt.path)
			if rest != tt.rest || v != tt.version {
				t.Fatalf("apiVersion(%q) = %q, %q; want %q, %q", tt.path, rest, v, tt.rest, tt.version)
			}
		})
	}
}

func FuzzAPIVersion(f *testing.F) {
	for _, s := range []string{"/v3/KEY", "/v3/KEY/rpc/v0_8", "/rpc/", "/rpc/v_", "/v3/a/rpc/v1_2/rpc/v3_4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		rest, v := apiVersion(path)
		switch {
		case v == "" && rest != path:
			t.Fatalf("apiVersion(%q) changed the path without a version: %q", path, rest)
		case v != "" && (rest+rpcVersionSegment+v != path || !validVersion(v)):
			t.Fatalf("apiVersion(%q) = %q, %q", path, rest, v)
		}
	})
}
