package main

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

// TestCheckShellGrammar runs the real binary's check on commands that
// bash, GNU sed or awk read differently from a loose reader (each once
// allowed by the default policy while it ran code, wrote anywhere or read
// secrets), and on the ordinary calls of the same tools.
func TestCheckShellGrammar(t *testing.T) {
	bin := sandboxBinary(t)
	root := policyProject(t, string(policy.DefaultYAML()))
	if code, out, errw := runCLI(t, "policy", "accept", "--dir", root, "--yes"); code != 0 {
		t.Fatalf("accept: %d %s%s", code, out, errw)
	}
	tests := []struct {
		script string
		code   int
	}{
		// Builtins that evaluate a subscript in a variable NAME.
		{"printf -vX[$(id)] x", 10},
		{"printf -v 'a[x]' 1", 10},
		{"v='a[$(id)]'; printf -v \"$v\" x", 10},
		{"test -v 'a[x]'", 10},
		{"[ -v 'a[x]' ]", 10},
		{"t=-v; test $t 'a[$(id)]'", 10},
		// GNU sed.
		{"sed ':a e id' f", 10},
		{"sed -n ':a w /tmp/x' f", 10},
		{"sed 'v;e id' f", 10},
		{"sed -i'/tmp/x*' s/a/b/ f", 10},
		{"sed -i'../bak/*' s/a/b/ f", 10},
		// awk.
		{"awk -Wexec=prog f", 10},
		{"awk -W exec prog f", 10},
		{"awk 'BEGIN { if (1) /\"/; system(\"id\"); x = \"\" }'", 10},
		{"awk '{printf(\"%s\",\n$1) > \"/etc/x\"}' f", 10},
		{"awk 'BEGIN{ARGV[1]=\"/etc/shadow\"; ARGC=2} {print}'", 10},
		// Ordinary calls stay allowed.
		{"sed -n '1,20p' file", 0},
		{"sed -i 's/a/b/' f.go", 0},
		{"awk '{print $1}' f", 0},
		{"awk -F: '{print $2}' f", 0},
		{"printf '%s\\n' x", 0},
		{"test -f x", 0},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			cmd := exec.Command(bin, "check", "--dir", root, "--cwd", root, "--script", tc.script)
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, out)
			}
		})
	}
}
