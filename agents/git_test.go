package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckedOut: the commit a new worktree's branch holds is read from
// its loose ref through the worktree's .git file and commondir; a packed
// ref, or a .git file that points nowhere sensible, is asked of git; a
// ref file that is not an object id is not believed.
func TestCheckedOut(t *testing.T) {
	r := newLandRepo(t, "a")
	ctx := context.Background()
	want := r.rev("sandbox/a")
	if got, ok := looseRef(r.worktree, "refs/heads/sandbox/a"); !ok || got != want {
		t.Errorf("looseRef = %q, %v; want %s", got, ok, want)
	}
	next := r.agentCommit("next", "a.txt", "changed\n")
	if got, err := checkedOut(ctx, r.worktree, "sandbox/a"); err != nil || got != next {
		t.Errorf("checkedOut after a commit = %q, %v; want %s", got, err, next)
	}
	gitT(t, r.root, "pack-refs", "--all")
	if _, ok := looseRef(r.worktree, "refs/heads/sandbox/a"); ok {
		t.Error("looseRef found a packed ref")
	}
	if got, err := checkedOut(ctx, r.worktree, "sandbox/a"); err != nil || got != next {
		t.Errorf("checkedOut of a packed ref = %q, %v; want %s", got, err, next)
	}
	// a ref file that holds no object id
	common := filepath.Join(r.root, ".git")
	os.MkdirAll(filepath.Join(common, "refs", "heads", "sandbox"), 0o755)
	for _, bad := range []string{"ref: refs/heads/main\n", "xyz\n", want + want[:2] + "\n"} {
		os.WriteFile(filepath.Join(common, "refs", "heads", "sandbox", "b"), []byte(bad), 0o644)
		if got, ok := looseRef(r.worktree, "refs/heads/sandbox/b"); ok {
			t.Errorf("looseRef believed %q: %q", bad, got)
		}
	}
	// a .git file with a relative gitdir, or none
	for _, dotgit := range []string{"gitdir: ../x\n", "not a gitdir line\n"} {
		wt := t.TempDir()
		os.WriteFile(filepath.Join(wt, ".git"), []byte(dotgit), 0o644)
		if _, ok := looseRef(wt, "refs/heads/sandbox/a"); ok {
			t.Errorf(".git %q: looseRef answered", dotgit)
		}
	}
}

// TestCheckBase: refused before any git work: an empty base, one that
// git would read as an option, and a MAIN without a .git directory (a
// folder below the top, or a linked worktree with a .git file).
func TestCheckBase(t *testing.T) {
	r := newLandRepo(t, "a")
	if err := checkBase(r.root, "HEAD"); err != nil {
		t.Errorf("MAIN at HEAD: %v", err)
	}
	for _, ref := range []string{"", "-b", "--output=x"} {
		if err := checkBase(r.root, ref); !errors.Is(err, ErrNoBase) {
			t.Errorf("base %q: %v, want ErrNoBase", ref, err)
		}
	}
	sub := filepath.Join(r.root, "sub")
	os.MkdirAll(sub, 0o755)
	for _, main := range []string{sub, r.worktree} {
		if err := checkBase(main, "HEAD"); !errors.Is(err, ErrNotRepo) {
			t.Errorf("MAIN %s: %v, want ErrNotRepo", main, err)
		}
	}
}

// TestBranchFree: a branch is seen as a loose ref and as a packed one;
// only then may spawn take a branch left by its own failed add for its
// own; refs kept another way are not guessed at.
func TestBranchFree(t *testing.T) {
	r := newLandRepo(t, "a")
	check := func(branch string, wantFree, wantKnown bool) {
		t.Helper()
		if free, known := branchFree(r.root, branch); free != wantFree || known != wantKnown {
			t.Errorf("branchFree(%s) = %v, %v; want %v, %v", branch, free, known, wantFree, wantKnown)
		}
	}
	check("sandbox/a", false, true)
	check("sandbox/b", true, true)
	check("sandbox/a/deeper", true, true) // git refuses it on its own (a ref is in the way)
	gitT(t, r.root, "pack-refs", "--all")
	check("sandbox/a", false, true)
	check("sandbox", true, true)
	check("sandbox/b", true, true)
	if err := os.Mkdir(filepath.Join(r.root, ".git", "reftable"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("sandbox/b", false, false)
}
