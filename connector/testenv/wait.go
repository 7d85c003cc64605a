package testenv

import (
	"testing"
	"time"
)

// WaitTimeout is how long WaitFor polls before it fails the test. It is
// generous on purpose: the suite runs with the race detector on two shared
// cores, where a condition that takes milliseconds alone can take seconds.
const WaitTimeout = 30 * time.Second

// WaitFor polls cond every 10 ms until it holds, and fails the test with
// "timed out waiting for WHAT" when it still does not after WaitTimeout.
// Tests wait for an effect this way instead of sleeping a fixed time, so
// they assert behaviour and never a duration.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(WaitTimeout); ; time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("timed out after %s waiting for %s", WaitTimeout, what)
		}
	}
}
