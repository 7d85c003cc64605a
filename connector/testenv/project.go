package testenv

import (
	"runtime"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Project is a project for a test: a temporary root (links resolved) with
// every .sandbox/ directory created, and the per-user state (opened,
// with its key) in another temporary directory that XDG_STATE_HOME (on
// Windows LOCALAPPDATA) points to, so the test never touches the real one.
func Project(t testing.TB) (folder.Folder, *userstate.State) {
	t.Helper()
	state := TempDir(t)
	t.Setenv("XDG_STATE_HOME", state)
	if runtime.GOOS == "windows" {
		t.Setenv("LOCALAPPDATA", state)
	}
	f := Folder(t, TempDir(t))
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatalf("per-user state: %v", err)
	}
	return f, st
}

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
