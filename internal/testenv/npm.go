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
	NPMCIUnder(t, "", dir, pins...)
}

// NPMCIUnder is NPMCI with npm run by the Node.js program node (and node
// first on the PATH of the install scripts), for packages whose native
// parts install only under a newer Node.js than the machine's (Hardhat 3
// under Node.js 22); node "" is the machine's npm as it is.
func NPMCIUnder(t testing.TB, node, dir string, pins ...string) {
	t.Helper()
	npm := Program(t, "npm ci in "+dir, "npm")
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
	if node != "" {
		cli, err := filepath.EvalSymlinks(npm) // npm is a link to its npm-cli.js
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.CommandContext(ctx, node, cli, "ci", "--no-audit", "--no-fund")
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
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
