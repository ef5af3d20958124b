package probes

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// long is NODEGATE_PROBES_LONG=1: the full figures (minutes).
var long = os.Getenv("NODEGATE_PROBES_LONG") == "1"

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
func TestHeldOutProbes(t *testing.T) {
	f := &figures{}
	probes := []probe{
		{"a pending block asked every second", probePendingBlock},
		{"b four keys loop createAccessList", probeAccessListLoops},
		{"c one key's connections", probeConnections},
		{"d concurrent sign-in guesses", probeSignIn},
		{"e one key change among revoked keys", probeRevokedKeys},
		{"f a 5 MB Starknet write request", probeStarknetWrites},
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
	t.Logf("held-out probes, %s, %s:\n%s", form, time.Since(start).Round(time.Second), strings.Join(f.rows, "\n"))
}
