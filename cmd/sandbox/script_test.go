package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScript runs the CLI contract suite: testdata/script/*.txtar, one
// file per contract (flags, messages, exit codes), each in a fresh work
// dir with its own per-user state. Two users are two state dirs:
// `env XDG_STATE_HOME=$WORK/alice`. git runs with no global or system
// config.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("XDG_STATE_HOME", filepath.Join(e.WorkDir, ".state"))
			e.Setenv("HOME", filepath.Join(e.WorkDir, ".home"))
			e.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
				e.Setenv(k, "t")
			}
			for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
				e.Setenv(k, "t@example.com")
			}
			return os.MkdirAll(filepath.Join(e.WorkDir, ".home"), 0o700)
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "git":
				_, err := exec.LookPath("git")
				return err == nil, nil
			}
			return false, nil
		},
	})
}
