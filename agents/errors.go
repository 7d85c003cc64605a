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
