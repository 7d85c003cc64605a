package testenv

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Project is a project for a test: a temporary root (links resolved) with
// every .sandbox/ directory created, and the per-user state (opened, with
// its key) in another temporary directory, so the test never touches the
// real one. Nothing in the environment points at that state: code under
// test gets st explicitly, a process the test starts gets StateEnv(st),
// and so tests that use Project may run in parallel. A test of code that
// can only find the state through the environment calls UseState.
func Project(t testing.TB) (folder.Folder, *userstate.State) {
	t.Helper()
	f := Folder(t, TempDir(t))
	st, err := userstate.OpenDir(stateDir(TempDir(t)), true)
	if err != nil {
		t.Fatalf("per-user state: %v", err)
	}
	return f, st
}

// StateEnv is the environment entry (or entries) that make a process find
// st as its per-user state: XDG_STATE_HOME, and LOCALAPPDATA on Windows.
func StateEnv(st *userstate.State) []string {
	home := filepath.Dir(st.Dir)
	env := []string{"XDG_STATE_HOME=" + home}
	if runtime.GOOS == "windows" {
		env = append(env, "LOCALAPPDATA="+home)
	}
	return env
}

// UseState points this test's environment at st (t.Setenv, so the test
// cannot run in parallel), for code that finds the per-user state only
// through userstate.Open.
func UseState(t testing.TB, st *userstate.State) {
	t.Helper()
	for _, kv := range StateEnv(st) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// stateDir is where userstate.DefaultDir puts the state under a base dir
// that XDG_STATE_HOME (LOCALAPPDATA) names.
func stateDir(base string) string { return filepath.Join(base, "sandbox") }

// Folder returns the folder rooted at root (links resolved) with every
// .sandbox/ directory created.
func Folder(t testing.TB, root string) folder.Folder {
	t.Helper()
	f, err := folder.New(root)
	if err != nil {
		t.Fatalf("folder: %v", err)
	}
	if err := f.Create(); err != nil {
		t.Fatalf("folder: %v", err)
	}
	return f
}
