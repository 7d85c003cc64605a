package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// TestAddWorktreeAsGitDoes: the worktree addWorktree writes is the one
// git worktree add makes, file for file and as git itself sees it: on
// its branch at the base, checked out and clean, listed, kept by a
// prune, and removable by git.
func TestAddWorktreeAsGitDoes(t *testing.T) {
	r := newLandRepo(t, "bygit")
	ctx := context.Background()
	base := r.rev("main")
	mine := filepath.Join(r.root, ".sandbox", "worktrees", "mine")
	if err := addWorktree(ctx, r.root, mine, "sandbox/mine", base, nil); err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(r.root, ".git")
	for _, f := range []string{"commondir", "gitdir", "HEAD"} {
		got := readT(t, filepath.Join(common, "worktrees", "mine", f))
		want := strings.ReplaceAll(readT(t, filepath.Join(common, "worktrees", "bygit", f)), "bygit", "mine")
		if got != want {
			t.Errorf("%s: %q, git writes %q", f, got, want)
		}
	}
	if got, want := readT(t, filepath.Join(mine, ".git")), strings.ReplaceAll(readT(t, filepath.Join(r.worktree, ".git")), "bygit", "mine"); got != want {
		t.Errorf(".git: %q, git writes %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(common, "worktrees", "mine", "locked")); err == nil {
		t.Error("the worktree is left locked")
	}
	if got := gitT(t, mine, "rev-parse", "--abbrev-ref", "HEAD"); got != "sandbox/mine" {
		t.Errorf("branch %q", got)
	}
	if got := gitT(t, mine, "rev-parse", "HEAD"); got != base {
		t.Errorf("HEAD %s, want the base %s", got, base)
	}
	if got := gitT(t, mine, "status", "--porcelain"); got != "" {
		t.Errorf("not clean after the checkout:\n%s", got)
	}
	if got := readT(t, filepath.Join(mine, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt: %q", got)
	}
	gitT(t, r.root, "worktree", "prune")
	if list := gitT(t, r.root, "worktree", "list", "--porcelain"); !strings.Contains(list, "worktree "+mine+"\nHEAD "+base+"\nbranch refs/heads/sandbox/mine") {
		t.Errorf("git worktree list:\n%s", list)
	}
	gitT(t, r.root, "fsck", "--no-progress")
	gitT(t, r.root, "worktree", "remove", mine)
	gitT(t, r.root, "branch", "-D", "sandbox/mine")
}

// TestAddWorktreeRefusals: a branch that is there (loose, packed, or
// being written under git's lock) is refused with nothing written; a
// repository this does not write for is left to git with nothing
// written; an administrative name taken gets a number as git gives one;
// a checkout that fails leaves nothing behind.
func TestAddWorktreeRefusals(t *testing.T) {
	r := newLandRepo(t, "a")
	ctx := context.Background()
	base := r.rev("main")
	common := filepath.Join(r.root, ".git")
	wt := func(name string) string { return filepath.Join(r.root, ".sandbox", "worktrees", name) }
	nothing := func(name string) {
		t.Helper()
		if _, err := os.Lstat(wt(name)); err == nil {
			t.Errorf("%s: the worktree is there", name)
		}
		if _, err := os.Lstat(filepath.Join(common, "worktrees", name)); err == nil {
			t.Errorf("%s: its administrative directory is there", name)
		}
	}

	// the branch is there: loose (sandbox/a), packed, or locked
	if err := addWorktree(ctx, r.root, wt("b"), "sandbox/a", base, nil); err != errBranchThere {
		t.Errorf("loose branch: %v", err)
	}
	nothing("b")
	gitT(t, r.root, "branch", "packed")
	gitT(t, r.root, "pack-refs", "--all")
	if err := addWorktree(ctx, r.root, wt("c"), "packed", base, nil); err != errBranchThere {
		t.Errorf("packed branch: %v", err)
	}
	nothing("c")
	gitT(t, r.root, "branch", "deep/er")
	gitT(t, r.root, "pack-refs", "--all")
	for _, b := range []string{"packed/below", "deep"} { // a packed branch is its directory, or below it
		if err := addWorktree(ctx, r.root, wt("c"), b, base, nil); err != errBranchThere {
			t.Errorf("branch %s beside packed refs: %v", b, err)
		}
		nothing("c")
	}
	os.MkdirAll(filepath.Join(common, "refs", "heads", "sandbox"), 0o755)
	os.WriteFile(filepath.Join(common, "refs", "heads", "sandbox", "d.lock"), nil, 0o644)
	if err := addWorktree(ctx, r.root, wt("d"), "sandbox/d", base, nil); err != errBranchThere {
		t.Errorf("branch being written: %v", err)
	}
	nothing("d")
	os.Remove(filepath.Join(common, "refs", "heads", "sandbox", "d.lock"))

	// configs a new worktree must follow: git worktree add's
	cfg := readT(t, filepath.Join(common, "config"))
	for _, extra := range []string{"[core]\n\tworktree = /elsewhere\n", "[extensions]\n\tworktreeConfig = true\n",
		"[core]\n\tsparseCheckout = true\n", "[include]\n\tpath = more\n", "[core]\n\tbare = true\n", "[core]\n\tbare = yes\n"} {
		os.WriteFile(filepath.Join(common, "config"), []byte(cfg+extra), 0o644)
		if err := addWorktree(ctx, r.root, wt("e"), "sandbox/e", base, nil); !errors.Is(err, errNotPlain) {
			t.Errorf("config %q: %v", extra, err)
		}
		nothing("e")
		if free, _ := branchFree(r.root, "sandbox/e"); !free {
			t.Fatalf("config %q: the branch was made", extra)
		}
	}
	os.WriteFile(filepath.Join(common, "config"), []byte(cfg), 0o644)
	if err := addWorktree(ctx, r.root, wt("e"), "sandbox/e", "HEAD", nil); !errors.Is(err, errNotPlain) {
		t.Errorf("a base that is no object id: %v", err)
	}

	// an administrative directory of the name is there: git's number
	os.MkdirAll(filepath.Join(common, "worktrees", "f"), 0o755)
	if err := addWorktree(ctx, r.root, wt("f"), "sandbox/f", base, nil); err != nil {
		t.Fatal(err)
	}
	if got := readT(t, filepath.Join(wt("f"), ".git")); got != "gitdir: "+filepath.Join(common, "worktrees", "f1")+"\n" {
		t.Errorf("taken name: .git %q", got)
	}
	if got := gitT(t, wt("f"), "rev-parse", "--abbrev-ref", "HEAD"); got != "sandbox/f" {
		t.Errorf("taken name: branch %q", got)
	}
	os.Remove(filepath.Join(common, "worktrees", "f"))

	// the checkout fails (a commit the repository does not have)
	missing := strings.Repeat("1", len(base))
	if err := addWorktree(ctx, r.root, wt("g"), "sandbox/g", missing, nil); err == nil {
		t.Fatal("a checkout of a missing commit succeeded")
	}
	nothing("g")
	if free, known := branchFree(r.root, "sandbox/g"); !free || !known {
		t.Error("a failed add left its branch")
	}
}

// TestHeadCommit: MAIN's HEAD read from git's files is what git says, on
// a branch (loose or packed) or detached; an unborn branch, or HEAD
// naming what is not a branch, is left to git.
func TestHeadCommit(t *testing.T) {
	r := newLandRepo(t, "a")
	gitDir := filepath.Join(r.root, ".git")
	want := r.rev("HEAD")
	if got, ok := headCommit(gitDir); !ok || got != want {
		t.Errorf("loose: %q %v, want %s", got, ok, want)
	}
	gitT(t, r.root, "pack-refs", "--all")
	if got, ok := headCommit(gitDir); !ok || got != want {
		t.Errorf("packed: %q %v, want %s", got, ok, want)
	}
	gitT(t, r.root, "checkout", "-q", "--detach")
	if got, ok := headCommit(gitDir); !ok || got != want {
		t.Errorf("detached: %q %v, want %s", got, ok, want)
	}
	for _, head := range []string{"ref: refs/heads/unborn\n", "ref: refs/tags/v1\n", "ref: refs/heads/../../config\n", "garbage\n"} {
		os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte(head), 0o644)
		if got, ok := headCommit(gitDir); ok {
			t.Errorf("HEAD %q: %q", head, got)
		}
	}
}

func readT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBusMadeBesideTheCheckout: the bus's directories made while git
// checks out a base whose tree holds a file or a link where one of them
// goes are replaced by the checkout, and the check after it refuses the
// worktree, as it refused such a tree when the directories came after.
func TestBusMadeBesideTheCheckout(t *testing.T) {
	r := newLandRepo(t, "a")
	ctx := context.Background()
	for i, plant := range []func(root string){
		func(root string) { write(t, root, ".sandbox/escalations", "not a directory\n") },
		func(root string) {
			os.MkdirAll(filepath.Join(root, ".sandbox"), 0o755)
			os.Symlink("/tmp", filepath.Join(root, ".sandbox", "shims"))
		},
	} {
		gitT(t, r.root, "checkout", "-q", "-b", "planted"+strconv.Itoa(i), "main")
		plant(r.root)
		gitT(t, r.root, "add", "-f", ".sandbox")
		gitT(t, r.root, "commit", "-q", "-m", "planted")
		base := r.rev("HEAD")
		gitT(t, r.root, "rm", "-rq", "--cached", ".sandbox")
		os.RemoveAll(filepath.Join(r.root, ".sandbox", "escalations"))
		os.Remove(filepath.Join(r.root, ".sandbox", "shims"))
		gitT(t, r.root, "checkout", "-q", "-f", "main")

		wt := folder.Folder{Root: filepath.Join(r.root, ".sandbox", "worktrees", "p"+strconv.Itoa(i))}
		// git replaces the directories in its way (or, had it failed on
		// them, the add fails: refused as well)
		if err := addWorktree(ctx, r.root, wt.Root, "sandbox/p"+strconv.Itoa(i), base, func() { wt.Create() }); err != nil {
			t.Logf("plant %d: refused by the add: %v", i, err)
			continue
		}
		if err := wt.Create(); err == nil {
			t.Errorf("plant %d: the bus of a worktree whose tree replaced one of its directories was taken", i)
		}
	}
}
