// Package testenv gives tests one way to skip for a missing capability
// (root, Landlock, cgroups, Wine, a real client) that CI can turn into a
// failure: with SANDBOX_STRICT_SKIPS=1 in the environment, a skip fails the
// test instead, so a green CI run really ran everything.
package testenv

import (
	"os"
	"os/exec"
)

// StrictVar is the environment variable that turns skips into failures.
const StrictVar = "SANDBOX_STRICT_SKIPS"

// T is the part of testing.TB that this package needs.
type T interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Strict reports whether skips are failures in this run.
func Strict() bool { return os.Getenv(StrictVar) == "1" }

// Skip skips the test with reason, or fails it when skips are strict.
func Skip(t T, reason string) {
	t.Helper()
	if Strict() {
		t.Fatalf("required capability missing (%s=1): %s", StrictVar, reason)
	}
	t.Skipf("skipped: %s", reason)
}

// RequireRoot skips unless the test runs as root.
func RequireRoot(t T) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root")
	}
}

// RequireCommand skips unless name is on PATH, and returns its path.
func RequireCommand(t T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Skip(t, name+" is not installed")
	}
	return p
}
