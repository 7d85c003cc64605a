package agents

import "errors"

var (
	// ErrBadName is a NAME that is not both a git branch component and a
	// path element.
	ErrBadName = errors.New("invalid agent name")
	// ErrNoAgent is a NAME the registry does not know.
	ErrNoAgent = errors.New("no such agent")
	// ErrExists is a spawn of a NAME that is already registered.
	ErrExists = errors.New("agent already exists")
	// ErrBusy is a NAME another process holds: a spawn in progress or a
	// running supervisor.
	ErrBusy = errors.New("agent is busy (being spawned, or its supervisor is running)")
	// ErrBadRecord is a registry record that cannot be read.
	ErrBadRecord = errors.New("bad agent record")
	// ErrSpawnAborted is what a supervisor started ahead gets when its
	// spawn failed before the agent's record was made (AwaitGate).
	ErrSpawnAborted = errors.New("the spawn that started this supervisor failed")
)

var (
	// ErrNoBase is a --base that names no commit.
	ErrNoBase = errors.New("no such commit in this repository")
)

var (
	// ErrUnknownAgent is an --agent that names no agent spawn can start.
	ErrUnknownAgent = errors.New("not an agent sandbox can start")
	// ErrNoTask is a headless spawn without a task.
	ErrNoTask = errors.New("no task")
)

// ErrEnded is an attached terminal whose agent went away.
var ErrEnded = errors.New("the agent's terminal closed (it ended, or was stopped)")

// ErrNoWorktree is an agent whose worktree is gone.
var ErrNoWorktree = errors.New("worktree missing")

// ErrBadTasks is a tasks.yaml that cannot be run.
var ErrBadTasks = errors.New("bad tasks file")

// The errors of land (land*.go).
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
