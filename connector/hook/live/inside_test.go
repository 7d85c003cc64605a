package live

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/shims"
)

// The hook inside the jail reads the cache the supervisor writes for the
// shims: one file name for both.
func TestPolicyCacheIsTheShims(t *testing.T) {
	if got, want := filepath.Join("d", policyCacheName), shims.CachePath("d"); got != want {
		t.Fatalf("hook reads %s, the supervisor writes %s", got, want)
	}
}

// shellQuote makes any script one argument that bash reads back byte for
// byte: quotes, substitutions, newlines and backslashes stay inert.
func TestShellQuoteRoundTrips(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, s := range []string{"", "'", "''", `'\''`, "a'b", "$(id) `id` ${HOME}", "line\nbreak", `back\slash\`, "é ✓ \t", "-c"} {
		out, err := exec.Command(bash, "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("%q came back as %q (%v)", s, out, err)
		}
	}
}

func TestWrapRefusesNUL(t *testing.T) {
	if _, err := (jailer{exe: "/s", root: "/p"}).Wrap("echo a\x00b", "/p"); err == nil {
		t.Fatal("a NUL byte was wrapped")
	}
}
