//go:build linux

package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJailDirect: a command the connector's shell form would only have
// started (Options.Direct) is started by the jail's init itself, with the
// environment bash would have given it; whatever would make bash do more
// (an exported function of that name, BASH_ENV, a script without #!, a
// program not on the jail's PATH) sends it to the shell, which then does
// what it always did.
func TestJailDirect(t *testing.T) {
	e := newJailEnv(t)
	bin := filepath.Join(e.project.Root, "bin")
	// who started me: the init or a shell
	mustWrite(t, filepath.Join(bin, "parent"), "#!/bin/sh\necho \"parent=$(cat /proc/$PPID/comm) args=$* shlvl=$SHLVL underscore=$_\"\n")
	mustWrite(t, filepath.Join(bin, "noshebang"), "echo \"noshebang ran by $(cat /proc/$PPID/comm)\"\n")
	for _, f := range []string{"parent", "noshebang"} {
		if err := os.Chmod(filepath.Join(bin, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := "PATH=" + bin + ":/usr/bin:/bin"
	const trap = "trap 'pwd -P >&0 2>/dev/null' EXIT; "
	cases := []struct {
		name   string
		direct []string
		script string
		env    []string
		want   string
		shell  bool // bash started it
	}{
		{"direct", []string{"parent", "a b", "c"}, `parent 'a b' c`, nil,
			"args=a b c shlvl=1 underscore=" + filepath.Join(bin, "parent"), false},
		{"exported function", []string{"parent", "x"}, "parent x", []string{"BASH_FUNC_parent%%=() { echo function; }"},
			"function", false},
		{"BASH_ENV", []string{"parent", "x"}, "parent x", []string{"BASH_ENV=/dev/null"},
			"parent=bash args=x shlvl=1 underscore=" + filepath.Join(bin, "parent"), true},
		{"no #!", []string{"noshebang"}, "noshebang", nil, "noshebang ran by bash", true},
		{"not found", []string{"no-such-program"}, "no-such-program", nil, "no-such-program: command not found", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := e.options(jailMode{name: "namespaces"}, "bash", "-c", trap+tc.script)
			o.Direct = tc.direct
			o.Env = append([]string{path, "SHLVL=0", "HOME=/root"}, tc.env...)
			o.Dir = e.project.Root
			out, _ := runJailed(t, o)
			if !strings.Contains(out, tc.want) {
				t.Errorf("got %q, want it to hold %q", out, tc.want)
			}
			if bash := strings.HasPrefix(out, "parent=bash "); strings.HasPrefix(out, "parent=") && bash != tc.shell {
				t.Errorf("got %q: started by bash %v, want %v", out, bash, tc.shell)
			}
		})
	}
}
