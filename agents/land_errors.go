package agents

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrNotRepo is a MAIN whose .git is not a directory of its own.
	ErrNotRepo = errors.New("not a git repository of its own")
	// ErrNoGit is a machine without git.
	ErrNoGit = errors.New("git not found")
	// ErrNoBranch is a branch (the agent's, or the target) that does not
	// exist in MAIN's repository.
	ErrNoBranch = errors.New("no such branch")
	// ErrLandUsage is a land that cannot be asked for as given (a bad
	// mode, a target that is the agent's own branch, a push without an
	// upstream, --pr without gh).
	ErrLandUsage = errors.New("cannot land")
	// ErrNothingToLand is a pinned commit the target already contains.
	ErrNothingToLand = errors.New("nothing to land")
	// ErrTargetMoved is a target branch that no longer points where it
	// did when the land was requested (and shown): landing now would do
	// something else than what was approved.
	ErrTargetMoved = errors.New("the target branch moved since the land was requested")
	// ErrCheckedOutElsewhere is a target checked out in another worktree,
	// whose files would silently stop matching its branch.
	ErrCheckedOutElsewhere = errors.New("the target branch is checked out in another worktree")
	// ErrLocalChanges is git refusing to bring MAIN's working tree up to
	// the landed commit because that would overwrite uncommitted changes
	// or untracked files; nothing changed.
	ErrLocalChanges = errors.New("MAIN's uncommitted changes are in the way; nothing changed")
)

// ConflictError is a land whose merge (or one replayed commit) conflicts:
// the files, and git's messages; nothing changed.
type ConflictError struct {
	Commit   string   // the replayed commit that conflicts (rebase), or ""
	Files    []string // the conflicting paths
	Messages string   // git's CONFLICT lines
}

func (e *ConflictError) Error() string {
	what := "the merge conflicts"
	if e.Commit != "" {
		what = "replaying " + abbrev(e.Commit) + " conflicts"
	}
	return fmt.Sprintf("%s in %d file(s): %s; nothing changed", what, len(e.Files), strings.Join(e.Files, ", "))
}

// short is the first 12 characters of a commit id.
func abbrev(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
