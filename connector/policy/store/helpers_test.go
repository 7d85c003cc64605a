package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// project is a folder with .sandbox/ and an opened per-user state, in
// temp dirs, with XDG_STATE_HOME and HOME pointing into them so nothing
// touches the real state.
func project(t *testing.T) (folder.Folder, *userstate.State) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, home, state := filepath.Join(base, "proj"), filepath.Join(base, "home"), filepath.Join(base, "state", "sandbox")
	for _, d := range []string{root, home, state, filepath.Join(root, ".sandbox")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("HOME", home)
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	st, err := userstate.OpenDir(state, true)
	if err != nil {
		t.Fatal(err)
	}
	return f, st
}

func mustWrite(t testing.TB, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dump lists a decision's parts, one a line.
func dump(d policy.Decision) string {
	var b strings.Builder
	for _, p := range d.Parts {
		b.WriteString("  " + p.Decision.String() + " " + string(p.Trigger) + " " + p.Subject + " [" + p.Rule + "] " + p.Reason + "\n")
	}
	return b.String()
}
