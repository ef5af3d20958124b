package bench

import (
	"os"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want ProcTimes
		ok   bool
	}{
		{"plain", "1234 (nodegate) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 100 0 0", ProcTimes{2500 * time.Millisecond, 500 * time.Millisecond}, true},
		{"spaces and parens in name", "1234 (a) b (c) R 1 2 3 4 5 6 7 8 9 10 7 3 0 0", ProcTimes{70 * time.Millisecond, 30 * time.Millisecond}, true},
		{"truncated", "1234 (x) S 1 2", ProcTimes{}, false},
		{"no name", "1234 S 1 2", ProcTimes{}, false},
		{"not numbers", "1 (x) S 1 2 3 4 5 6 7 8 9 10 a b", ProcTimes{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tc.raw))
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("got %v, %v; want %v, ok=%v", got, err, tc.want, tc.ok)
			}
		})
	}
}

// TestProcCPUSelf reads this process's own CPU, which must grow while it spins.
func TestProcCPUSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs on Linux: /proc is required: %v", err)
		}
		t.Skip("no /proc on this system") // outside CI only: under CI this fails just above
	}
	before, err := ProcCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 150*time.Millisecond; { // burn CPU
	}
	after, err := ProcCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after.Total() <= before.Total() {
		t.Errorf("cpu did not grow: %v then %v", before, after)
	}
	if _, err := ProcCPU(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

func TestReadPIDFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := dir+"/good", dir+"/bad"
	_ = os.WriteFile(good, []byte("4242\n"), 0o644)
	_ = os.WriteFile(bad, []byte("x"), 0o644)
	if pid, err := ReadPIDFile(good); err != nil || pid != 4242 {
		t.Errorf("good: %d, %v", pid, err)
	}
	if _, err := ReadPIDFile(bad); err == nil {
		t.Error("bad: no error")
	}
}
