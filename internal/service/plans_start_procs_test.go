package service

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOlderFileAtStartSaysPlansNotApplied: a replica started with a file
// older than the key store's plans (the store has plan gold, pushed by a
// newer file; this file has none) does not move the fleet's plans back —
// a key can still be made on gold — and says so at start, loudly (a
// "PLANS NOT APPLIED" line naming what differs). Issue 29's soak: a
// replica restarted with an unchanged file put the fleet's plans back to
// its file's values for 9 minutes, with one warning line.
func TestOlderFileAtStartSaysPlansNotApplied(t *testing.T) {
	node := startNode(t, "", "127.0.0.1:0")
	dir := t.TempDir()
	conf := func(plans string) string {
		return fmt.Sprintf("listen: 127.0.0.1:0\ndata_dir: %s/data\nupstream: %s\nadmin: { listen: 127.0.0.1:0, token: %s }\nplans: { %s }\n",
			dir, node.url(), adminToken, plans)
	}
	newer := startServe(t, nil, "--config", writeConfig(t, dir, conf("team: { rate_per_second: 0 }, gold: { rate_per_second: 500 }")))
	if code := createKeyOnPlan(t, newer, "gold"); code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("a key on gold from the newer file's replica: %d", code)
	}
	newer.signal(syscall.SIGTERM)
	if code := newer.wait(60 * time.Second); code != 0 {
		t.Fatalf("the first replica exited %d:\n%s", code, newer.output())
	}

	older := startServe(t, nil, "--config", writeConfig(t, dir, conf("team: { rate_per_second: 0 }")))
	if out := older.output(); !strings.Contains(out, "PLANS NOT APPLIED") || !strings.Contains(out, "gold") {
		t.Errorf("a replica started with an older file did not say so at start:\n%s", out)
	}
	if code := createKeyOnPlan(t, older, "gold"); code != http.StatusCreated && code != http.StatusOK {
		t.Errorf("a key on gold after a replica started with an older file: %d (the fleet's plans moved back)", code)
	}
}
