//go:build linux

package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/gitworktree"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// fakeWorktree lays out, without git, what `git worktree add` makes: a
// repository's .git (COMMON) with worktrees/a, and the worktree's gitfile.
type fakeWorktree struct {
	base, root, common, admin string
}

func newFakeWorktree(t *testing.T) fakeWorktree {
	t.Helper()
	base := t.TempDir()
	w := fakeWorktree{base: base, common: filepath.Join(base, "main", ".git"),
		root: filepath.Join(base, "main", ".sandbox", "worktrees", "a")}
	w.admin = filepath.Join(w.common, "worktrees", "a")
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "logs", "hooks", "worktrees/a"} {
		if err := os.MkdirAll(filepath.Join(w.common, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(w.common, "config"), "[core]\n")
	mustWrite(t, filepath.Join(w.admin, "HEAD"), "ref: refs/heads/sandbox/a\n")
	mustWrite(t, filepath.Join(w.admin, "commondir"), "../..\n")
	mustWrite(t, filepath.Join(w.admin, "gitdir"), filepath.Join(w.root, ".git")+"\n")
	mustWrite(t, filepath.Join(w.root, ".git"), "gitdir: "+w.admin+"\n")
	return w
}

// other makes a second repository with a worktree dir whose files are all
// consistent with a worktree of its own.
func (w fakeWorktree) other(t *testing.T) string {
	t.Helper()
	common := filepath.Join(w.base, "other", ".git")
	admin := filepath.Join(common, "worktrees", "a")
	mustWrite(t, filepath.Join(admin, "commondir"), "../..\n")
	mustWrite(t, filepath.Join(admin, "gitdir"), filepath.Join(w.base, "other-wt", ".git")+"\n")
	if err := os.MkdirAll(filepath.Join(common, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	return admin
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The gitfile checks, by class: what the gitfile is, where it leads, and
// whether the worktree dir there leads back. Each refusal grants nothing.
func TestLinkedWorktreeChecks(t *testing.T) {
	gitfile := func(w fakeWorktree) string { return filepath.Join(w.root, ".git") }
	cases := []struct {
		name   string
		tamper func(t *testing.T, w fakeWorktree)
		ok     bool
	}{
		{"as git makes it", func(*testing.T, fakeWorktree) {}, true},
		{"relative gitdir", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, gitfile(w), "gitdir: ../../../.git/worktrees/a\n")
			mustWrite(t, filepath.Join(w.admin, "gitdir"), "../../../.sandbox/worktrees/a/.git\n")
		}, true},
		{"no trailing newline", func(t *testing.T, w fakeWorktree) { mustWrite(t, gitfile(w), "gitdir: "+w.admin) }, true},
		// the gitfile itself
		{"gitfile a symbolic link", func(t *testing.T, w fakeWorktree) {
			moved := filepath.Join(w.base, "gitfile")
			must(t, os.Rename(gitfile(w), moved))
			must(t, os.Symlink(moved, gitfile(w)))
		}, false},
		{"gitfile a fifo", func(t *testing.T, w fakeWorktree) {
			must(t, os.Remove(gitfile(w)))
			must(t, syscall.Mkfifo(gitfile(w), 0o644))
		}, false},
		{"gitfile too big", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, gitfile(w), "gitdir: "+w.admin+strings.Repeat(" ", 4096))
		}, false},
		{"gitfile two lines", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, gitfile(w), "gitdir: "+w.admin+"\ngitdir: /etc\n")
		}, false},
		{"gitfile no gitdir line", func(t *testing.T, w fakeWorktree) { mustWrite(t, gitfile(w), w.admin+"\n") }, false},
		{"gitfile empty gitdir", func(t *testing.T, w fakeWorktree) { mustWrite(t, gitfile(w), "gitdir: \n") }, false},
		// where it leads
		{"points at another repository", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, gitfile(w), "gitdir: "+w.other(t)+"\n")
		}, false},
		{"points at another worktree's dir", func(t *testing.T, w fakeWorktree) {
			b := filepath.Join(w.common, "worktrees", "b")
			mustWrite(t, filepath.Join(b, "commondir"), "../..\n")
			mustWrite(t, filepath.Join(b, "gitdir"), filepath.Join(w.base, "main/.sandbox/worktrees/b/.git")+"\n")
			mustWrite(t, gitfile(w), "gitdir: "+b+"\n")
		}, false},
		{"points at COMMON", func(t *testing.T, w fakeWorktree) { mustWrite(t, gitfile(w), "gitdir: "+w.common+"\n") }, false},
		{"points at a missing dir", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, gitfile(w), "gitdir: "+filepath.Join(w.common, "worktrees", "zz")+"\n")
		}, false},
		{"through a symbolic link", func(t *testing.T, w fakeWorktree) {
			link := filepath.Join(w.base, "link")
			must(t, os.Symlink(filepath.Join(w.base, "main"), link))
			mustWrite(t, gitfile(w), "gitdir: "+filepath.Join(link, ".git/worktrees/a")+"\n")
		}, false},
		{"worktree dir a symbolic link", func(t *testing.T, w fakeWorktree) {
			real := filepath.Join(w.base, "admin-real")
			must(t, os.Rename(w.admin, real))
			must(t, os.Symlink(real, w.admin))
		}, false},
		{"COMMON not named .git", func(t *testing.T, w fakeWorktree) {
			bare := filepath.Join(w.base, "main", "repo.git")
			must(t, os.Rename(w.common, bare))
			mustWrite(t, gitfile(w), "gitdir: "+filepath.Join(bare, "worktrees/a")+"\n")
		}, false},
		// whether it leads back
		{"commondir elsewhere", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, filepath.Join(w.admin, "commondir"), filepath.Join(w.base, "other/.git")+"\n")
		}, false},
		{"commondir missing", func(t *testing.T, w fakeWorktree) { must(t, os.Remove(filepath.Join(w.admin, "commondir"))) }, false},
		{"commondir a symbolic link", func(t *testing.T, w fakeWorktree) {
			p := filepath.Join(w.admin, "commondir")
			must(t, os.Rename(p, filepath.Join(w.base, "commondir")))
			must(t, os.Symlink(filepath.Join(w.base, "commondir"), p))
		}, false},
		{"gitdir names another worktree", func(t *testing.T, w fakeWorktree) {
			mustWrite(t, filepath.Join(w.admin, "gitdir"), filepath.Join(w.base, "elsewhere/.git")+"\n")
		}, false},
		{"gitdir missing", func(t *testing.T, w fakeWorktree) { must(t, os.Remove(filepath.Join(w.admin, "gitdir"))) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newFakeWorktree(t)
			tc.tamper(t, w)
			_, err := gitworktree.Find(w.root)
			if (err == nil) != tc.ok {
				t.Fatalf("gitworktree.Find: %v, want ok=%v", err, tc.ok)
			}
			fs := fakeWorktreeFS(t, w)
			granted := slices.ContainsFunc(fs.Writable, func(p string) bool {
				return p == w.common || strings.HasPrefix(p, w.common+"/") || strings.HasPrefix(p, filepath.Join(w.base, "other"))
			})
			if granted != tc.ok {
				t.Errorf("writes in a repository: %v, want %v (%v)", granted, tc.ok, fs.Writable)
			}
		})
	}
}

func fakeWorktreeFS(t *testing.T, w fakeWorktree) jailspec.FS {
	t.Helper()
	f, err := folder.New(w.root)
	if err != nil {
		t.Fatal(err)
	}
	return buildFS(&Options{Folder: f, StateDir: filepath.Join(w.base, "state"), Env: []string{"HOME=" + w.base}}, true, nil)
}

// What a checked worktree gets: its COMMON trees and own dir writable
// and reached without a link, the protected names pinned; a tree that is
// a symbolic link is left out; a .git directory is no linked worktree.
func TestLinkedWorktreeGrants(t *testing.T) {
	w := newFakeWorktree(t)
	must(t, os.Rename(filepath.Join(w.common, "logs"), filepath.Join(w.base, "logs")))
	must(t, os.Symlink(filepath.Join(w.base, "logs"), filepath.Join(w.common, "logs")))
	fs := fakeWorktreeFS(t, w)
	want := []string{filepath.Join(w.common, "objects"), filepath.Join(w.common, "refs"), w.admin}
	for _, p := range want {
		if !slices.Contains(fs.Writable, p) || !slices.Contains(fs.NoLinks, p) {
			t.Errorf("%s not writable without links: %v %v", p, fs.Writable, fs.NoLinks)
		}
	}
	if slices.Contains(fs.Writable, filepath.Join(w.common, "logs")) {
		t.Errorf("a logs/ that is a link is granted")
	}
	for _, p := range []string{filepath.Join(w.root, ".git"), filepath.Join(w.common, "objects/info/alternates"),
		filepath.Join(w.admin, "commondir"), filepath.Join(w.admin, "gitdir"), filepath.Join(w.admin, "config.worktree"),
		filepath.Join(w.admin, "locked")} {
		if !slices.Contains(fs.ReadOnly, p) {
			t.Errorf("%s not pinned", p)
		}
	}
	for _, p := range []string{filepath.Join(w.admin, "config.worktree"), filepath.Join(w.common, "objects/info/alternates")} {
		if c, ok := fs.Placeholders[p]; !ok || c != "" {
			t.Errorf("placeholder of %s: %q %v", p, c, ok)
		}
	}
	plain := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(plain, ".git"), 0o755))
	if _, err := gitworktree.Find(plain); !errors.Is(err, gitworktree.ErrNotLinked) {
		t.Errorf("a .git directory: %v, want ErrNotLinked", err)
	}
}
