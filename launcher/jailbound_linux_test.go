//go:build linux

package launcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// shLines runs script with /bin/sh in the jail and returns its output
// lines of the form "NAME RESULT" as a map.
func (e *testJail) shLines(t *testing.T, m jailMode, script string, mod ...func(*Options)) (map[string]string, string) {
	t.Helper()
	o := e.options(m, "/bin/sh", "-c", script)
	for _, f := range mod {
		f(&o)
	}
	out, _ := runJailed(t, o)
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), " "); ok && strings.HasPrefix(k, "@") {
			got[k[1:]] = v
		}
	}
	return got, out
}

// try is a shell function for shLines scripts: `try NAME CMD...` prints
// "@NAME ok" when CMD succeeds and "@NAME denied" otherwise.
const try = `try() { n=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "@$n ok"; else echo "@$n denied"; fi; }
`

// TestJailInitUnreachable: nothing the supervisor inherited reaches the
// command, neither as a descriptor of its own nor through the init's
// /proc entries (the init is the command's parent in every mode: pid 1
// with a pid namespace).
func TestJailInitUnreachable(t *testing.T) {
	e := newJailEnv(t)
	fd, err := syscall.Open(e.secret, syscall.O_RDONLY, 0) // no O_CLOEXEC: as a shell would leave it
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	script := try + fmt.Sprintf(`p=$PPID
try own-fd sh -c 'cat <&%[1]d'
try init-fd-link sh -c "readlink /proc/$p/fd/0 && ls -l /proc/$p/fd/ | grep -- -\\>"
try init-fd sh -c "cat /proc/$p/fd/%[1]d"
try init-environ sh -c "head -c1 /proc/$p/environ | grep -q ."
try init-mem sh -c "exec 9</proc/$p/mem"
try init-root sh -c "ls /proc/$p/root/ | grep ."
try init-cwd sh -c "ls /proc/$p/cwd/ | grep ."
try init-maps sh -c "head -c1 /proc/$p/maps | grep -q ."
try self-fd sh -c "ls /proc/self/fd/ | grep ."
`, fd)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			got, out := e.shLines(t, m, script)
			if got["self-fd"] != "ok" {
				t.Fatalf("the control case failed:\n%s", out)
			}
			for _, k := range []string{"own-fd", "init-fd-link", "init-fd", "init-environ", "init-mem", "init-root", "init-cwd", "init-maps"} {
				if got[k] != "denied" {
					t.Errorf("%s: %q, want denied\n%s", k, got[k], out)
				}
			}
			if strings.Contains(out, "secret") {
				t.Errorf("the secret leaked:\n%s", out)
			}
		})
	}
}

var _ = filepath.Join
var _ = os.Getpid
