package testenv

import (
	"go/token"
	"strings"
	"testing"
)

// TestNoHandWrittenDeadlineLoops: no test file in the repository waits
// with a loop of its own against a deadline; it calls WaitFor. A new one
// fails here, naming its file and line.
func TestNoHandWrittenDeadlineLoops(t *testing.T) {
	t.Parallel()
	found, err := DeadlineLoops("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range found {
		t.Errorf("%s: a hand-written deadline loop; wait with testenv.WaitFor", at)
	}
}

// TestDeadlineLoopsFinds: the forms DeadlineLoops flags, and the ones it
// leaves alone.
func TestDeadlineLoopsFinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       bool
	}{
		{"condition before the deadline", `deadline := time.Now().Add(time.Second)
	for !ok() && time.Now().Before(deadline) {
		pause()
	}`, true},
		{"if after the deadline in the body", `deadline := time.Now().Add(time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			panic("late")
		}
		pause()
	}`, true},
		{"deadline declared in the loop", `for deadline := time.Now().Add(time.Second); ; {
		if ok() || time.Now().After(deadline) {
			break
		}
	}`, true},
		{"nested in a range loop", `deadline := time.Now().Add(time.Second)
	for range 3 {
		for !ok() {
			if time.Now().After(deadline) {
				return
			}
		}
	}`, true},
		{"WaitFor", `WaitFor(nil, time.Second, "ok", ok)`, false},
		{"a load run for a duration", `for start := time.Now(); time.Since(start) < time.Second; {
		ok()
	}`, false},
		{"a time compared outside a loop", `if time.Now().After(time.Unix(0, 0)) {
		ok()
	}`, false},
		{"a loop in a closure is the closure's", `for range 3 {
		go func() {}()
	}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\n\nimport \"time\"\n\nfunc ok() bool { return true }\n\nfunc pause() {}\n\nfunc f() {\n\t" + tc.body + "\n}\n"
			found, err := deadlineLoopsIn(token.NewFileSet(), "p_test.go", src)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(found) > 0; got != tc.want {
				t.Fatalf("flagged %v (%s), want %v", got, strings.Join(found, " "), tc.want)
			}
		})
	}
}
