//go:build unix

package broker_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
)

func TestScrub(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		pass []string
		want []string
	}{
		{"default keeps the basics and resets PATH",
			[]string{"HOME=/h", "PATH=/agent/bin:/usr/bin", "LC_ALL=C", "LANG=en", "FOO=bar", "SSH_AUTH_SOCK=/s"}, nil,
			[]string{"HOME=/h", "LC_ALL=C", "LANG=en", "SSH_AUTH_SOCK=/s", "PATH=" + broker.DefaultPATH}},
		{"default drops the dangerous",
			[]string{"LD_PRELOAD=x", "LD_LIBRARY_PATH=x", "BASH_ENV=x", "ENV=x", "GIT_DIR=x", "GIT_SSH_COMMAND=x",
				"PAGER=x", "PYTHONPATH=x", "NODE_OPTIONS=x", "BASH_FUNC_ls%%=() { x; }", "SHELLOPTS=xtrace", "PS4=$(x)", "SHELL=/x"}, nil,
			[]string{"PATH=" + broker.DefaultPATH}},
		{"NeverPass beats an exact name and a wildcard",
			[]string{"LD_PRELOAD=x", "GIT_DIR=x", "A=1"}, []string{"LD_PRELOAD", "GIT_DIR", "*"},
			[]string{"A=1"}},
		{"policy passes the inherited PATH by name",
			[]string{"PATH=/mine"}, []string{"PATH"}, []string{"PATH=/mine"}},
		{"fixed values win over the input",
			[]string{"PATH=/agent", "TZ=x"}, []string{"PATH=/p", "TZ", "GIT_TERMINAL_PROMPT=0"},
			[]string{"TZ=x", "PATH=/p", "GIT_TERMINAL_PROMPT=0"}},
		{"last duplicate wins in place",
			[]string{"HOME=/a", "TZ=x", "HOME=/b"}, []string{"HOME", "TZ"}, []string{"HOME=/b", "TZ=x"}},
		{"malformed dropped",
			[]string{"HOME", "=x", "", "TZ=ok"}, []string{"HOME", "TZ", "=y"}, []string{"TZ=ok"}},
		{"empty pass-list passes nothing", []string{"HOME=/h"}, []string{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := broker.Scrub(tc.env, tc.pass); !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestRunEnvironmentNeverReachesTheChild: a hostile environment scrubbed
// by default: no loader, shell start-up, git or interpreter variables reach
// bash -c or what it runs. BASH_ENV would run a file before the script.
func TestRunEnvironmentNeverReachesTheChild(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "bash_env_ran")
	startup := filepath.Join(root, "startup.sh")
	if err := os.WriteFile(startup, []byte("touch "+marker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostile := append(os.Environ(),
		"LD_PRELOAD=/nonexistent/evil.so", "BASH_ENV="+startup, "ENV="+startup,
		"GIT_DIR=/tmp/evil", "GIT_CONFIG_GLOBAL=/tmp/evil", "PATH="+root+":/usr/bin:/bin",
		"BASH_FUNC_echo%%=() { touch "+marker+"; }", "SHELLOPTS=xtrace", "PS4=$(touch "+marker+")",
	)
	t.Run("control: unscrubbed, the marker appears", func(t *testing.T) {
		mustRun(t, broker.Spec{Root: root, Script: "true", Env: hostile})
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("the hostile environment is not hostile: %v", err)
		}
		os.Remove(marker)
	})
	for _, shell := range []string{"bash", "sh"} {
		t.Run(shell, func(t *testing.T) {
			oc := mustRun(t, broker.Spec{Root: root, Shell: shell, Script: "echo hi; env", Env: broker.Scrub(hostile, nil)})
			for _, bad := range []string{"LD_PRELOAD", "BASH_ENV", "ENV=", "GIT_", "BASH_FUNC", "SHELLOPTS", "PS4", root + ":"} {
				if strings.Contains(oc.Stdout, bad) || strings.Contains(oc.Stderr, bad) {
					t.Errorf("%s reached the child:\n%s%s", bad, oc.Stdout, oc.Stderr)
				}
			}
			if !trustedPATHIn(oc.Stdout, root) {
				t.Errorf("PATH not reset:\n%s", oc.Stdout)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("a start-up file or function ran")
			}
		})
	}
}

// TestRunNilEnvIsScrubbed: without an Env, Run scrubs its own environment.
func TestRunNilEnvIsScrubbed(t *testing.T) {
	t.Setenv("LD_PRELOAD", "/nonexistent/evil.so")
	t.Setenv("GIT_DIR", "/tmp/evil")
	oc, err := broker.Run(context.Background(), broker.Spec{Root: t.TempDir(), Argv: []string{"env"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(oc.Stdout, "LD_PRELOAD") || strings.Contains(oc.Stdout, "GIT_DIR") ||
		!trustedPATHIn(oc.Stdout, "") {
		t.Errorf("environment:\n%s", oc.Stdout)
	}
}

// trustedPATHIn reports whether env output holds one PATH that ends with
// DefaultPATH's entries and has no entry the agent could plant a program
// in (the approver's own toolchain dirs come first).
func trustedPATHIn(out, root string) bool {
	var paths []string
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "PATH="); ok {
			paths = append(paths, v)
		}
	}
	if len(paths) != 1 || !strings.HasSuffix(paths[0], broker.DefaultPATH) {
		return false
	}
	for _, dir := range strings.Split(paths[0], ":") {
		if !strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "/tmp") || strings.HasPrefix(dir, "/var/tmp") ||
			(root != "" && strings.HasPrefix(dir, root)) {
			return false
		}
	}
	return true
}
