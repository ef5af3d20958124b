package testenv

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NPMCI runs `npm ci` in dir (a folder with a committed package-lock.json)
// unless its node_modules already came from that lock: npm writes its own
// copy of the lock there, and both must hold every pin (a locked version,
// e.g. `"node_modules/ethers": {` + "\n" + `      "version": "6.17.0"`).
// Without npm the test fails under CI and is skipped elsewhere.
func NPMCI(t testing.TB, dir string, pins ...string) {
	t.Helper()
	Program(t, "npm ci in "+dir, "npm")
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if installed, err := os.ReadFile(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && holdsAll(lock, pins) && holdsAll(installed, pins) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}

func holdsAll(b []byte, pins []string) bool {
	for _, pin := range pins {
		if !bytes.Contains(b, []byte(pin)) {
			return false
		}
	}
	return true
}
