package config

import (
	"strings"
	"testing"
)

// TestUpstreamFloors: archive, state_from and logs_from decode from YAML,
// give the floors the pool starts with, and are refused where they cannot
// hold (a Starknet network, an archive node with a floor above 0) or do
// not parse.
func TestUpstreamFloors(t *testing.T) {
	cases := []struct {
		name              string
		yaml              string
		wantErr           string
		state, logs       uint64
		stateSet, logsSet bool
	}{
		{"none: probed", `{name: a, url: "http://127.0.0.1:1"}`, "", 0, 0, false, false},
		{"archive", `{name: a, url: "http://127.0.0.1:1", archive: true}`, "", 0, 0, true, true},
		{"state only", `{name: a, url: "http://127.0.0.1:1", state_from: 1000}`, "", 1000, 0, true, false},
		{"both", `{name: a, url: "http://127.0.0.1:1", state_from: 1000, logs_from: 15537394}`, "", 1000, 15537394, true, true},
		{"archive from 0", `{name: a, url: "http://127.0.0.1:1", archive: true, state_from: 0}`, "", 0, 0, true, true},
		{"archive and a floor", `{name: a, url: "http://127.0.0.1:1", archive: true, logs_from: 5}`, "networks[0].upstreams[0].archive: an archive node serves every block", 0, 0, false, false},
		{"negative", `{name: a, url: "http://127.0.0.1:1", state_from: -1}`, "state_from", 0, 0, false, false},
		{"not a number", `{name: a, url: "http://127.0.0.1:1", logs_from: soon}`, "logs_from", 0, 0, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			err := Decode([]byte("networks:\n  - name: main\n    upstreams:\n      - "+tc.yaml+"\n"), &c)
			if err == nil {
				err = c.Validate()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			state, logs, stateSet, logsSet := c.Networks[0].Upstreams[0].Floors()
			if state != tc.state || logs != tc.logs || stateSet != tc.stateSet || logsSet != tc.logsSet {
				t.Fatalf("floors state %d (%v) logs %d (%v)", state, stateSet, logs, logsSet)
			}
		})
	}
	t.Run("starknet", func(t *testing.T) {
		c := Defaults()
		c.Networks = []Network{{Name: "sn", Family: "starknet", Upstreams: []Upstream{{Name: "a", URL: "http://127.0.0.1:1", Archive: true}}}}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "networks[0].upstreams[0]: archive, state_from and logs_from are for a network of family evm only") {
			t.Fatalf("error %v", err)
		}
	})
}
