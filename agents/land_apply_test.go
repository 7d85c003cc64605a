package agents

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLandMergeKeepsUncommittedChanges: a clean branch merges into MAIN's
// checked-out main; an uncommitted change to a tracked file, a staged
// one and an untracked file in MAIN's working tree all survive.
func TestLandMergeKeepsUncommittedChanges(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "fixer")
	head := r.agentCommit("agent work", "a.txt", "one\nTWO\nthree\n", "new.txt", "agent\n")
	write(t, r.root, "u.txt", "user edit, not committed\n")
	write(t, r.root, "staged.txt", "staged\n")
	gitT(t, r.root, "add", "staged.txt")
	write(t, r.root, "untracked.txt", "mine\n")
	l := r.landing(Merge)
	a, err := r.apply(l)
	if err != nil {
		t.Fatal(err)
	}
	if !a.CheckedOut || a.New != r.rev("main") {
		t.Fatalf("applied %+v, main at %s", a, r.rev("main"))
	}
	if got := gitT(t, r.root, "rev-parse", "main^1", "main^2"); got != l.Target+"\n"+head {
		t.Fatalf("merge parents: %s", got)
	}
	for name, want := range map[string]string{"a.txt": "one\nTWO\nthree\n", "new.txt": "agent\n",
		"u.txt": "user edit, not committed\n", "staged.txt": "staged\n", "untracked.txt": "mine\n"} {
		if got := read(t, r.root, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	status := gitT(t, r.root, "status", "--porcelain")
	if status != "A  staged.txt\n M u.txt\n?? untracked.txt" {
		t.Fatalf("status after the land:\n%s", status)
	}
}

// TestLandRefusesToOverwriteLocalChanges: the branch changes a file MAIN
// has uncommitted changes in: git refuses and nothing changes.
func TestLandRefusesToOverwriteLocalChanges(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{Merge, Squash, Rebase} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			r := newLandRepo(t, "edit")
			r.agentCommit("agent edits u", "u.txt", "agent\n")
			write(t, r.root, "u.txt", "user edit, not committed\n")
			before := r.snapshot()
			_, err := r.apply(r.landing(mode))
			if !errors.Is(err, ErrLocalChanges) || !strings.Contains(err.Error(), "u.txt") {
				t.Fatalf("err = %v, want ErrLocalChanges naming u.txt", err)
			}
			if after := r.snapshot(); after != before {
				t.Fatalf("a refused land changed MAIN:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestLandConflictChangesNothing: main and the branch change the same
// line; every mode reports the file and leaves refs, index, working tree
// and git's state files as they were.
func TestLandConflictChangesNothing(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{Merge, Squash, Rebase} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			r := newLandRepo(t, "clash")
			r.agentCommit("agent", "a.txt", "one\nAGENT\nthree\n", "b.txt", "fine\n")
			r.mainCommit("user", "a.txt", "one\nUSER\nthree\n")
			write(t, r.root, "u.txt", "dirty\n")
			before := r.snapshot()
			_, err := r.apply(r.landing(mode))
			var ce *ConflictError
			if !errors.As(err, &ce) || len(ce.Files) != 1 || ce.Files[0] != "a.txt" {
				t.Fatalf("err = %v, want a conflict in a.txt", err)
			}
			if !strings.Contains(ce.Messages, "CONFLICT") {
				t.Errorf("messages: %q", ce.Messages)
			}
			if after := r.snapshot(); after != before {
				t.Fatalf("a conflicting land changed MAIN:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestLandLandsThePinnedCommitOnly: the agent commits again after the
// land was asked for; only the pinned commit lands.
func TestLandLandsThePinnedCommitOnly(t *testing.T) {
	t.Parallel()
	for _, mode := range []Mode{Merge, Squash, Rebase} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			r := newLandRepo(t, "pin")
			r.mainCommit("user moves main", "m.txt", "main\n")
			pinned := r.agentCommit("shown", "shown.txt", "approved\n")
			l := r.landing(mode)
			r.agentCommit("later", "later.txt", "never approved\n")
			if _, err := r.apply(l); err != nil {
				t.Fatal(err)
			}
			files := gitT(t, r.root, "ls-tree", "-r", "--name-only", "main")
			if !strings.Contains(files, "shown.txt") || strings.Contains(files, "later.txt") {
				t.Fatalf("main's files after landing %s:\n%s", pinned[:12], files)
			}
			if _, err := os.Stat(filepath.Join(r.root, "later.txt")); err == nil {
				t.Fatal("later.txt reached MAIN's working tree")
			}
		})
	}
}

// TestLandSquash: one commit on main, its parent the old main, the
// branch's changes and subjects in it.
func TestLandSquash(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "sq")
	r.agentCommit("first", "x.txt", "x\n")
	r.agentCommit("second", "y.txt", "y\n")
	l := r.landing(Squash)
	if _, err := r.apply(l); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, r.root, "rev-list", "--parents", "-1", "main"); !strings.HasSuffix(got, " "+l.Target) || strings.Count(got, " ") != 1 {
		t.Fatalf("squash commit and parents: %s (want one parent %s)", got, l.Target)
	}
	msg := gitT(t, r.root, "log", "-1", "--format=%B%an", "main")
	for _, want := range []string{"Squash sandbox/sq", "* first", "* second", "Lander"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if read(t, r.root, "x.txt")+read(t, r.root, "y.txt") != "x\ny\n" {
		t.Fatal("the squashed files are not in MAIN's working tree")
	}
}

// TestLandRebase: main moved on; the branch's two commits are replayed
// on it (authors and messages kept, the landing's identity as committer)
// and main fast-forwards to them; a second commit that undoes part of
// the first is replayed as such (each step's base is its own parent).
func TestLandRebase(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "rb")
	r.agentCommit("add lines", "a.txt", "one\ntwo\nthree\nfour\n", "tmp.txt", "tmp\n")
	gitT(t, r.worktree, "rm", "-q", "tmp.txt")
	r.agentCommit("drop tmp", "a.txt", "one\ntwo\nthree\nfour\nfive\n")
	mainTip := r.mainCommit("user", "m.txt", "main\n")
	l := r.landing(Rebase)
	if _, err := r.apply(l); err != nil {
		t.Fatal(err)
	}
	if got := r.rev("main~2"); got != mainTip {
		t.Fatalf("main~2 = %s, want the old main %s", got, mainTip)
	}
	if got := gitT(t, r.root, "log", "--format=%s|%an|%cn", "-2", "main"); got != "drop tmp|Agent|Lander\nadd lines|Agent|Lander" {
		t.Fatalf("replayed commits:\n%s", got)
	}
	if got := gitT(t, r.root, "ls-tree", "-r", "--name-only", "main"); got != ".gitignore\na.txt\nm.txt\nu.txt" {
		t.Fatalf("main's files:\n%s", got)
	}
	if read(t, r.root, "a.txt") != "one\ntwo\nthree\nfour\nfive\n" {
		t.Fatalf("a.txt = %q", read(t, r.root, "a.txt"))
	}
}

// TestLandSquashOfNothing: the target has the branch's changes already
// (cherry-picked by hand): a squash would be an empty commit; refused.
func TestLandSquashOfNothing(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "dup")
	r.agentCommit("work", "x.txt", "x\n")
	r.mainCommit("same work", "x.txt", "x\n")
	if _, err := r.apply(r.landing(Squash)); !errors.Is(err, ErrNothingToLand) {
		t.Fatalf("err = %v, want ErrNothingToLand", err)
	}
}

// TestLandRebaseFastForwards: main has not moved: it becomes the pinned
// commit itself.
func TestLandRebaseFastForwards(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "ff")
	head := r.agentCommit("work", "x.txt", "x\n")
	if _, err := r.apply(r.landing(Rebase)); err != nil {
		t.Fatal(err)
	}
	if r.rev("main") != head {
		t.Fatalf("main = %s, want %s", r.rev("main"), head)
	}
}

// TestLandIntoBranchNotCheckedOut: the target is not MAIN's checked-out
// branch: it moves without a checkout; MAIN's working tree and branch
// are untouched.
func TestLandIntoBranchNotCheckedOut(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "rel")
	gitT(t, r.root, "branch", "release")
	head := r.agentCommit("fix", "a.txt", "one\nfixed\nthree\n")
	write(t, r.root, "a.txt", "user's own edit\n")
	l := r.landing(Merge)
	l.Into, l.Target = "release", r.rev("release")
	mainBefore := r.rev("main")
	a, err := r.apply(l)
	if err != nil {
		t.Fatal(err)
	}
	if a.CheckedOut || r.rev("release") != a.New || r.rev("release^2") != head || r.rev("main") != mainBefore {
		t.Fatalf("applied %+v; release %s main %s", a, r.rev("release"), r.rev("main"))
	}
	if read(t, r.root, "a.txt") != "user's own edit\n" {
		t.Fatal("landing into release touched MAIN's working tree")
	}
}

// TestLandRefusals: a target that moved since the request, a commit not
// in the repository, a head main already contains, a target checked out
// in another worktree: refused, nothing changed.
func TestLandRefusals(t *testing.T) {
	t.Parallel()
	r := newLandRepo(t, "ref")
	r.agentCommit("work", "x.txt", "x\n")
	other := filepath.Join(t.TempDir(), "other")
	gitT(t, r.root, "worktree", "add", "-q", "-b", "elsewhere", other)
	moved := r.landing(Merge)
	r.mainCommit("moved", "m.txt", "m\n")
	missing := r.landing(Merge)
	missing.Head = strings.Repeat("ab", 20)
	contained := r.landing(Merge)
	contained.Head = r.rev("main~1")
	busy := r.landing(Merge)
	busy.Into, busy.Target = "elsewhere", r.rev("elsewhere")
	for _, tc := range []struct {
		name string
		l    Landing
		want error
	}{
		{"moved", moved, ErrTargetMoved},
		{"missing", missing, ErrNoBranch},
		{"contained", contained, ErrNothingToLand},
		{"elsewhere", busy, ErrCheckedOutElsewhere},
	} {
		before := r.snapshot()
		if _, err := r.apply(tc.l); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if r.snapshot() != before {
			t.Errorf("%s: a refused land changed MAIN", tc.name)
		}
	}
}
