package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// parentProject is an initialised project with a plain subfolder, its
// per-user state dir, and that project's per-folder state path.
func parentProject(t *testing.T) (root, sub, folderState string) {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root, _ = filepath.EvalSymlinks(t.TempDir())
	if code, _, errs := run(t, root, "init", root); code != 0 {
		t.Fatalf("init: %d %s", code, errs)
	}
	sub = filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := userstate.OpenDir(filepath.Join(state, "sandbox"), false)
	if err != nil {
		t.Fatal(err)
	}
	return root, sub, st.FolderPath(root)
}

func mustExist(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}

// TestUninstallNeverWalksUp: from a subfolder, through a .sandbox link to
// the parent's, and a second --purge after a nested project's first: the
// parent project and its per-user state stay, and the error names it.
func TestUninstallNeverWalksUp(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root, sub string)
		runs  int
	}{
		{"plain subfolder", func(*testing.T, string, string) {}, 1},
		{"sandbox link to the parent's", func(t *testing.T, root, sub string) {
			if err := os.Symlink(filepath.Join(root, folder.DirName), filepath.Join(sub, folder.DirName)); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"purge twice in a nested project", func(t *testing.T, root, sub string) {
			if code, _, errs := run(t, sub, "init", "--nested"); code != 0 {
				t.Fatalf("init --nested: %d %s", code, errs)
			}
		}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, sub, state := parentProject(t)
			tc.setup(t, root, sub)
			var code int
			var errs string
			for i := 0; i < tc.runs; i++ {
				code, _, errs = run(t, sub, "uninstall", "--purge", "--yes")
			}
			if code != exitNoDir || !strings.Contains(errs, "enclosing project is "+root) {
				t.Errorf("uninstall --purge from %s: exit %d, %q; want %d naming %s", sub, code, errs, exitNoDir, root)
			}
			mustExist(t, folder.Folder{Root: root}.Policy(), state)
		})
	}
}

// TestUninstallPurgeLeavesLinkTargets: links inside .sandbox/ are deleted,
// never followed.
func TestUninstallPurgeLeavesLinkTargets(t *testing.T) {
	root, _, _ := parentProject(t)
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep")
	os.WriteFile(keep, []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(folder.Folder{Root: root}.Results(), "out"))
	if code, out, errs := run(t, root, "uninstall", "--purge", "--yes"); code != 0 || !strings.Contains(out, "deleted "+filepath.Join(root, ".sandbox")) {
		t.Fatalf("purge: %d %q %s", code, out, errs)
	}
	mustExist(t, keep)
}

// TestUninstallThroughALinkNamesTheRealFolder: a linked path acts on the
// project it leads to and prints that project's real path.
func TestUninstallThroughALinkNamesTheRealFolder(t *testing.T) {
	root, _, _ := parentProject(t)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(root, link)
	code, out, _ := run(t, t.TempDir(), "uninstall", link, "--purge", "--yes")
	if code != 0 || !strings.Contains(out, "Project folder: "+root) {
		t.Fatalf("uninstall via link: %d %q", code, out)
	}
}

// TestUninstallAsksFirst: without a terminal and without --yes nothing is
// touched, and the message says what to do.
func TestUninstallAsksFirst(t *testing.T) {
	root, _, state := parentProject(t)
	code, out, errs := run(t, root, "uninstall", "--purge")
	if code == 0 || !strings.Contains(errs, "--yes") || !strings.Contains(out, "delete "+filepath.Join(root, ".sandbox")) {
		t.Fatalf("uninstall --purge without --yes: %d %q %q", code, out, errs)
	}
	mustExist(t, folder.Folder{Root: root}.Policy(), state)
}

// TestInitRefusesInsideAProject: a nested .sandbox/ would take over the
// subfolder silently; init refuses and names the enclosing project.
func TestInitRefusesInsideAProject(t *testing.T) {
	root, sub, _ := parentProject(t)
	code, _, errs := run(t, sub, "init")
	if code == 0 || !strings.Contains(errs, "inside the project "+root) {
		t.Fatalf("init in a subfolder: %d %q", code, errs)
	}
	if _, err := os.Lstat(filepath.Join(sub, folder.DirName)); !os.IsNotExist(err) {
		t.Fatal("init created a nested .sandbox/")
	}
}
