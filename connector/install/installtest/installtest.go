// Package installtest holds what every agent integration's install tests
// need: a project folder holding the user's config file, a fixed sandbox
// path for the hooks to run, and golden files with an -update flag.
package installtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/install"
)

// Exe is the sandbox binary the written configurations name, so that golden
// files do not depend on where the test binary lives.
const Exe = "/opt/sandbox/bin/sandbox"

// Project is a fresh project folder holding files (relative path → content,
// mode 0600), with the Env an integration installs into.
func Project(t testing.TB, files map[string]string) install.Env {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return install.Env{Folder: folder.Folder{Root: root}, Exe: Exe}
}

// File is a fresh project whose config file rel holds content when exists
// is true (and is absent otherwise), and that file's path.
func File(t testing.TB, rel, content string, exists bool) (install.Env, string) {
	t.Helper()
	files := map[string]string{}
	if exists {
		files[rel] = content
	}
	env := Project(t, files)
	return env, filepath.Join(env.Folder.Root, rel)
}

// Golden compares got with testdata/name, or rewrites it when update is set.
func Golden(t testing.TB, update bool, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with -update)", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}
