package probes

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// long is NODEGATE_PROBES_LONG=1: the full figures (minutes).
var long = os.Getenv("NODEGATE_PROBES_LONG") == "1"

// only is NODEGATE_PROBES_ONLY: the letters of the probes to run (e.g.
// "b", or "a,c"); empty runs them all.
var only = os.Getenv("NODEGATE_PROBES_ONLY")

// chosen are the probes of all that only names, or an error naming a
// letter no probe has.
func chosen(all []probe, only string) ([]probe, error) {
	if strings.TrimSpace(only) == "" {
		return all, nil
	}
	var out []probe
	for _, letter := range strings.Split(only, ",") {
		letter = strings.TrimSpace(letter)
		i := slices.IndexFunc(all, func(p probe) bool { return strings.HasPrefix(p.name, letter+" ") })
		if letter == "" || i < 0 {
			return nil, fmt.Errorf("NODEGATE_PROBES_ONLY=%q: no probe %q (want letters a to %c, comma-separated)", only, letter, 'a'+len(all)-1)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// pick is short in the short form, full with NODEGATE_PROBES_LONG=1.
func pick[T any](short, full T) T {
	if long {
		return full
	}
	return short
}

// figures are what the probes measured, printed together at the end.
type figures struct {
	mu   sync.Mutex
	rows []string
}

func (f *figures) add(probe, format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rows = append(f.rows, fmt.Sprintf("%-34s %s", probe, fmt.Sprintf(format, args...)))
}

// probe is one held-out probe: it asserts its target and reports its
// figures.
type probe struct {
	name string
	run  func(t *testing.T, f *figures)
}

// TestHeldOutProbes runs issue 29's held-out probes and prints their
// figures: (a) the pending block, (b) four keys looping
// eth_createAccessList, (c) one key's connections, (d) concurrent
// sign-in guesses on SQLite and PostgreSQL, (e) one key change among
// many revoked keys, (f) a 5 MB Starknet write request.
// NODEGATE_PROBES_ONLY=b (or a,c …) runs only the probes it names.
func TestHeldOutProbes(t *testing.T) {
	f := &figures{}
	all := []probe{
		{"a pending block asked every second", probePendingBlock},
		{"b four keys loop createAccessList", probeAccessListLoops},
		{"c one key's connections", probeConnections},
		{"d concurrent sign-in guesses", probeSignIn},
		{"e one key change among revoked keys", probeRevokedKeys},
		{"f a 5 MB Starknet write request", probeStarknetWrites},
	}
	probes, err := chosen(all, only)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) { p.run(t, f) })
	}
	sort.Strings(f.rows)
	form := "short form (NODEGATE_PROBES_LONG=1 for the full figures)"
	if long {
		form = "full form"
	}
	if len(probes) < len(all) {
		form += ", NODEGATE_PROBES_ONLY=" + only
	}
	t.Logf("held-out probes, %s, %s:\n%s", form, time.Since(start).Round(time.Second), strings.Join(f.rows, "\n"))
}

// TestProbesOnly: NODEGATE_PROBES_ONLY picks probes by letter, in the
// order given, and refuses a letter no probe has.
func TestProbesOnly(t *testing.T) {
	all := []probe{{name: "a one"}, {name: "b two"}, {name: "c three"}}
	tests := []struct {
		name, only string
		want       []string
		fails      bool
	}{
		{"unset runs all", "", []string{"a one", "b two", "c three"}, false},
		{"one letter", "b", []string{"b two"}, false},
		{"two, spaced", "c, a", []string{"c three", "a one"}, false},
		{"unknown letter", "z", nil, true},
		{"empty item", "a,", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chosen(all, tc.only)
			if (err != nil) != tc.fails {
				t.Fatalf("err %v, want failure %v", err, tc.fails)
			}
			var names []string
			for _, p := range got {
				names = append(names, p.name)
			}
			if !slices.Equal(names, tc.want) {
				t.Fatalf("got %q, want %q", names, tc.want)
			}
		})
	}
}
