package broker

import "errors"

// Errors returned by Run.
var (
	// ErrSpec: the Spec is malformed (no command, both script and argv, ...).
	ErrSpec = errors.New("broker: bad spec")
	// ErrShell: the script's shell is not one the broker knows how to run
	// (on Windows every script, for now; it also matches errors.ErrUnsupported).
	ErrShell = errors.New("broker: unsupported shell")
	// ErrNotFound: an argv's program was not found on the scrubbed PATH.
	ErrNotFound = errors.New("broker: program not found")
	// ErrCwd: the working directory is missing, not a directory, or outside
	// the project root.
	ErrCwd = errors.New("broker: working directory refused")
	// ErrLog: the log file could not be created or written.
	ErrLog = errors.New("broker: log file")
	// ErrStart: the process could not be started.
	ErrStart = errors.New("broker: start failed")
)

// Errors returned by ApplyWrite and ApplyEdits.
var (
	// ErrSymlink: a component of the path, or the target itself, is a
	// symbolic link (or a reparse point on Windows). Nothing was written.
	ErrSymlink = errors.New("broker: symbolic link in path")
	// ErrNotRegular: the target exists and is not a regular file.
	ErrNotRegular = errors.New("broker: not a regular file")
	// ErrHardLink: an edit's target has more than one link; reading it could
	// disclose a file the agent linked in.
	ErrHardLink = errors.New("broker: file has several links")
	// ErrTooLarge: an edit's target exceeds MaxEditSize.
	ErrTooLarge = errors.New("broker: file too large to edit")
	// ErrPath: the path is empty, relative outside the root, or otherwise unusable.
	ErrPath = errors.New("broker: bad path")
	// ErrNoFile: an edit's target does not exist.
	ErrNoFile = errors.New("broker: file does not exist")
	// ErrSwapped: after the rename, the file at the target is not the one
	// the broker wrote (another process renamed its own file over it, or
	// wrote into it). The write counts as failed.
	ErrSwapped = errors.New("broker: the written file was swapped")
)

// Edit errors (Claude Code's semantics).
var (
	ErrNoEdits     = errors.New("no edits given")
	ErrEmptyOld    = errors.New("old_string is empty")
	ErrNoChange    = errors.New("old_string and new_string are the same")
	ErrOldNotFound = errors.New("old_string not found in file")
	ErrAmbiguous   = errors.New("old_string matches more than once and replace_all is false")
)
