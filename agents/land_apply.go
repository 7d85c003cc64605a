package agents

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Applied is what an approved land did.
type Applied struct {
	Landing
	New string // the target's commit now
	// CheckedOut: the target is MAIN's checked-out branch, whose working
	// tree git fast-forwarded (uncommitted changes kept).
	CheckedOut bool
}

func (a Applied) String() string {
	where := "updated without a checkout"
	if a.CheckedOut {
		where = "checked out in MAIN: working tree fast-forwarded, uncommitted changes kept"
	}
	return fmt.Sprintf("landed %s at %s into %s (%s): %s is now %s (was %s); %s",
		a.Branch(), abbrev(a.Head), a.Into, a.Mode, a.Into, abbrev(a.New), abbrev(a.Target), where)
}

// Apply carries out an approved land in MAIN's repository at root: it
// makes the new commit(s) without touching any ref, index or file, then
// moves the target to it in one step: `git merge --ff-only` when the
// target is MAIN's checked-out branch (git refuses, changing nothing, when
// that would overwrite an uncommitted change or an untracked file;
// otherwise they survive), else `git update-ref` with the target's old
// value as the expected one. A conflict is found before anything moves
// and reported with its files (*ConflictError): no half merge, no
// MERGE_HEAD.
func Apply(ctx context.Context, root string, l Landing) (Applied, error) {
	a := Applied{Landing: l}
	if err := l.Check(); err != nil {
		return a, err
	}
	r, err := openRepo(root)
	if err != nil {
		return a, err
	}
	if err := r.checkTarget(ctx, l); err != nil {
		return a, err
	}
	newID, err := r.build(ctx, l)
	if err != nil {
		return a, err
	}
	a.New = newID
	cur, err := r.checkedOut(ctx)
	if err != nil {
		return a, err
	}
	if a.CheckedOut = cur == l.Into; a.CheckedOut {
		return a, r.fastForward(ctx, newID)
	}
	_, err = r.run(ctx, "update-ref", "-m", "sandbox agents land "+l.Name, "refs/heads/"+l.Into, newID, l.Target)
	return a, err
}

// checkTarget checks that the pinned commit exists, that the target is
// where it was when the land was shown, and that no other worktree has it
// checked out.
func (r *repo) checkTarget(ctx context.Context, l Landing) error {
	head, err := r.commit(ctx, l.Head)
	if err != nil {
		return err
	}
	if head != l.Head {
		return fmt.Errorf("%w: commit %s is not in MAIN's repository", ErrNoBranch, l.Head)
	}
	now, err := r.commit(ctx, "refs/heads/"+l.Into)
	switch {
	case err != nil:
		return err
	case now == "":
		return fmt.Errorf("%w: %s", ErrNoBranch, l.Into)
	case now != l.Target:
		return fmt.Errorf("%w: %s is at %s, not %s; ask for the land again", ErrTargetMoved, l.Into, abbrev(now), abbrev(l.Target))
	}
	if wt, err := r.elsewhere(ctx, l.Into); err != nil || wt != "" {
		return errors.Join(err, fmt.Errorf("%w: %s in %s", ErrCheckedOutElsewhere, l.Into, wt))
	}
	return nil
}

// fastForward moves MAIN's checked-out branch and working tree to id, a
// descendant of it: git's own two-way checkout, which keeps uncommitted
// changes and untracked files unless they would be overwritten, and then
// refuses before changing anything. No autostash: it would take the
// user's changes away and put them back.
//
// A refusing merge has still written ORIG_HEAD; it is put back as it was.
func (r *repo) fastForward(ctx context.Context, id string) error {
	orig := filepath.Join(r.gitDir, "ORIG_HEAD")
	was, readErr := os.ReadFile(orig)
	_, err := r.run(ctx, "merge", "--ff-only", "--no-autostash", "--no-stat", "--quiet", id)
	var ge *gitError
	if !errors.As(err, &ge) {
		return err
	}
	restore := os.Remove(orig)
	if readErr == nil {
		restore = os.WriteFile(orig, was, 0o644)
	}
	if errors.Is(restore, fs.ErrNotExist) {
		restore = nil
	}
	return errors.Join(fmt.Errorf("%w: %s", ErrLocalChanges, strings.TrimSpace(ge.stderr)), restore)
}

// build makes the commit(s) of l's mode and returns the one the target
// moves to. It writes objects only.
func (r *repo) build(ctx context.Context, l Landing) (string, error) {
	contained, err := r.isAncestor(ctx, l.Head, l.Target)
	if err != nil {
		return "", err
	}
	if contained {
		return "", fmt.Errorf("%w: %s already contains %s", ErrNothingToLand, l.Into, abbrev(l.Head))
	}
	switch l.Mode {
	case Merge:
		tree, err := r.mergeTree(ctx, l.Target, l.Head, "")
		if err != nil {
			return "", err
		}
		msg := fmt.Sprintf("Merge %s (agent %s) at %s into %s\n", l.Branch(), l.Name, abbrev(l.Head), l.Into)
		return r.commitTree(ctx, identEnv(l.Ident, true), tree, msg, l.Target, l.Head)
	case Squash:
		tree, err := r.mergeTree(ctx, l.Target, l.Head, "")
		if err != nil {
			return "", err
		}
		same, err := r.line(ctx, "rev-parse", l.Target+"^{tree}")
		if err != nil {
			return "", err
		}
		if same == tree {
			return "", fmt.Errorf("%w: %s has every change of %s already", ErrNothingToLand, l.Into, abbrev(l.Head))
		}
		msg, err := r.squashMessage(ctx, l)
		if err != nil {
			return "", err
		}
		return r.commitTree(ctx, identEnv(l.Ident, true), tree, msg, l.Target)
	case Rebase:
		return r.replay(ctx, l)
	}
	return "", fmt.Errorf("bug: land mode %q", l.Mode)
}

// mergeTree merges ours and theirs (`git merge-tree --write-tree`, which
// touches no ref, index or file) and returns the tree; a conflict is a
// *ConflictError naming the files.
func (r *repo) mergeTree(ctx context.Context, ours, theirs, commit string) (string, error) {
	out, err := r.run(ctx, "merge-tree", "--write-tree", "--name-only", ours, theirs)
	var ge *gitError
	if errors.As(err, &ge) && ge.code == 1 {
		return "", conflict(out, commit)
	}
	if err != nil {
		return "", err
	}
	tree, _, _ := strings.Cut(out, "\n")
	return strings.TrimSpace(tree), nil
}

// conflict reads merge-tree's output on a conflict: the tree, the
// conflicting paths, an empty line, git's messages.
func conflict(out, commit string) *ConflictError {
	e := &ConflictError{Commit: commit}
	lines := strings.Split(out, "\n")
	for i, l := range lines[min(1, len(lines)):] {
		if l == "" {
			e.Messages = strings.TrimSpace(strings.Join(lines[i+2:], "\n"))
			break
		}
		e.Files = append(e.Files, l)
	}
	return e
}

// commitTree makes a commit of tree with parents and message msg.
func (r *repo) commitTree(ctx context.Context, env []string, tree, msg string, parents ...string) (string, error) {
	args := []string{"commit-tree", "--no-gpg-sign", tree, "-m", msg}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := r.runEnv(ctx, env, args...)
	return strings.TrimSpace(out), err
}

// identEnv makes ident ("Name <email>") the committer and, with author,
// the author.
func identEnv(ident string, author bool) []string {
	name, email, _ := strings.Cut(ident, " <")
	email = strings.TrimSuffix(email, ">")
	env := []string{"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
	if author {
		env = append(env, "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email)
	}
	return env
}

// squashMessage names the branch and lists the subjects of the commits
// it squashes.
func (r *repo) squashMessage(ctx context.Context, l Landing) (string, error) {
	subjects, err := r.run(ctx, "log", "--reverse", "--format=* %s", l.Target+".."+l.Head)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Squash %s (agent %s) at %s into %s\n\n%s", l.Branch(), l.Name, abbrev(l.Head), l.Into, subjects), nil
}

// replay replays the commits of l.Target..l.Head onto the target and
// returns the last new commit; a target the head already descends from
// fast-forwards to the head itself.
//
// git 2.39's merge-tree picks the merge base itself (--merge-base came in
// 2.40), and replaying commit C onto the new tip needs C's parent as the
// base. So each step merges C into a helper commit (the new tip's tree,
// with the tip and C's parent as parents): C's parent is then the one
// best common ancestor. The helpers are never referenced (git gc drops
// them).
func (r *repo) replay(ctx context.Context, l Landing) (string, error) {
	ff, err := r.isAncestor(ctx, l.Target, l.Head)
	if err != nil || ff {
		return l.Head, err
	}
	merges, err := r.line(ctx, "rev-list", "--min-parents=2", l.Target+".."+l.Head)
	if err != nil {
		return "", err
	}
	if merges != "" {
		return "", fmt.Errorf("%w: %s has merge commits (%s); land it with --merge or --squash", ErrLandUsage, l.Branch(), abbrev(strings.Fields(merges)[0]))
	}
	list, err := r.line(ctx, "rev-list", "--reverse", l.Target+".."+l.Head)
	if err != nil {
		return "", err
	}
	tip := l.Target
	for _, c := range strings.Fields(list) {
		if tip, err = r.replayOne(ctx, l, tip, c); err != nil {
			return "", err
		}
	}
	return tip, nil
}

// replayOne makes c's change on tip as a new commit with c's author and
// message.
func (r *repo) replayOne(ctx context.Context, l Landing, tip, c string) (string, error) {
	helper, err := r.commitTree(ctx, identEnv(l.Ident, true), tip+"^{tree}", "sandbox land: replay helper\n", tip, c+"^")
	if err != nil {
		return "", err
	}
	tree, err := r.mergeTree(ctx, helper, c, c)
	if err != nil {
		return "", err
	}
	meta, err := r.run(ctx, "log", "-1", "--format=%an%x00%ae%x00%ad%x00%B", "--date=raw", c)
	if err != nil {
		return "", err
	}
	f := strings.SplitN(meta, "\x00", 4)
	if len(f) != 4 {
		return "", fmt.Errorf("bug: commit %s: unexpected log output", c)
	}
	env := append(identEnv(l.Ident, false), "GIT_AUTHOR_NAME="+f[0], "GIT_AUTHOR_EMAIL="+f[1], "GIT_AUTHOR_DATE="+f[2])
	return r.commitTree(ctx, env, tree, strings.TrimRight(f[3], "\n")+"\n", tip)
}
