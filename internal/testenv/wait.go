package testenv

import (
	"testing"
	"time"
)

// pollEvery is how often WaitFor asks again.
const pollEvery = 10 * time.Millisecond

// WaitFor asks cond every 10 ms until it holds and returns how long that
// took; when within passes first, the test fails saying what it waited for.
// Tests poll with it instead of sleeping a fixed time.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > within {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(pollEvery)
	}
	return time.Since(start)
}
