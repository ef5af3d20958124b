package config

import (
	"strings"
	"testing"
)

func TestDecodeNamesUnknownFieldPath(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"top level", "listn: x\n", "unknown field listn"},
		{"nested", "limits:\n  max_batchx: 3\n", "unknown field limits.max_batchx"},
		{"inline struct", "limits:\n  get_logs_max_result: 3\n", "unknown field limits.get_logs_max_result"},
		{"map of structs", "plans:\n  team:\n    rate: 3\n", "unknown field plans.team.rate"},
		{"list of structs", "networks:\n  - name: a\n    upstreams:\n      - url: embedded\n        wieght: 2\n", "unknown field networks[0].upstreams[0].wieght"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			err := Decode([]byte(tc.yaml), &cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "config.") {
				t.Fatalf("err names a Go type: %v", err)
			}
		})
	}
}

func TestDecodeKnownFieldsPass(t *testing.T) {
	cfg := Defaults()
	raw := "limits:\n  max_batch: 7\n  get_logs_max_results: 9\nplans:\n  team: { rate_per_second: 3 }\nnetworks:\n  - name: a\n    upstreams: [ { url: embedded, weight: 2 } ]\n"
	if err := Decode([]byte(raw), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.MaxBatch != 7 || cfg.Limits.GetLogsMaxResults != 9 || cfg.Networks[0].Upstreams[0].Weight != 2 {
		t.Fatalf("%+v", cfg.Limits)
	}
}

func TestDecodeUnsetVariableIsNamed(t *testing.T) {
	t.Setenv("NODEGATE_TEST_SET", "0123456789abcdef0123456789abcdef")
	t.Setenv("NODEGATE_TEST_EMPTY", "")
	cfg := Defaults()
	err := Decode([]byte("api_keys: [ \"${NODEGATE_TEST_UNSET_X}\" ]\n"), &cfg)
	if err == nil || !strings.Contains(err.Error(), "NODEGATE_TEST_UNSET_X is not set") {
		t.Fatalf("err = %v", err)
	}
	cfg = Defaults()
	if err := Decode([]byte("api_keys: [ \"${NODEGATE_TEST_SET}\" ]\nadmin: { token: \"${NODEGATE_TEST_EMPTY}\" }\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.APIKeys[0] != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("%v", cfg.APIKeys)
	}
}

// TestDecodeExpandsValuesOnly: ${NAME} is read in values only: in a
// comment or a key it is left alone (a pasted example's comment is not an
// error), and a plain value filled by a variable is read as what it holds.
func TestDecodeExpandsValuesOnly(t *testing.T) {
	t.Setenv("NODEGATE_TEST_BATCH", "12")
	t.Setenv("NODEGATE_TEST_TOKEN", "0123456789abcdef")
	for _, tc := range []struct {
		name, yaml string
		check      func(Config) bool
	}{
		{"comment", "rate_limit:\n  redis_url: \"\"   # ${NODEGATE_TEST_UNSET_Y} for a password\n", func(c Config) bool { return c.RateLimit.RedisURL == "" }},
		{"whole-line comment", "# ${NODEGATE_TEST_UNSET_Y}\nlimits: { max_batch: 3 }\n", func(c Config) bool { return c.Limits.MaxBatch == 3 }},
		{"number", "limits:\n  max_batch: ${NODEGATE_TEST_BATCH}\n", func(c Config) bool { return c.Limits.MaxBatch == 12 }},
		{"inside a string", "admin: { token: \"x${NODEGATE_TEST_TOKEN}\" }\n", func(c Config) bool { return c.Admin.Token == "x0123456789abcdef" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Defaults()
			if err := Decode([]byte(tc.yaml), &cfg); err != nil {
				t.Fatal(err)
			}
			if !tc.check(cfg) {
				t.Fatalf("decoded %+v", cfg)
			}
		})
	}
}

// FuzzDecode: any input gives a config or an error, never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("limits:\n  max_batch: 3\n"))
	f.Add([]byte("networks:\n  - name: a\n    upstreams: [ { url: embedded } ]\n"))
	f.Add([]byte("a: &x { b: 1 }\nc: *x\n"))
	f.Add([]byte("plans: [1, 2]\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg := Defaults()
		_ = Decode(raw, &cfg)
	})
}
