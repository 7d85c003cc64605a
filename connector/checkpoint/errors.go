package checkpoint

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrNotFound is a checkpoint id that names no checkpoint.
	ErrNotFound = errors.New("no such checkpoint")
	// ErrBadID is a checkpoint id that is not of the form the store makes.
	ErrBadID = errors.New("not a checkpoint id")
	// ErrCorrupt is an object or record whose content no longer matches
	// its id, or that does not parse.
	ErrCorrupt = errors.New("checkpoint store is corrupt")
	// ErrLink is a path whose parent, in the project, is now a symbolic
	// link (or not a directory): restore does not write through it.
	ErrLink = errors.New("a parent directory was replaced by a link or a file since the checkpoint")
	// ErrOtherProject is a checkpoint taken in another project folder.
	ErrOtherProject = errors.New("checkpoint belongs to another folder")
	// ErrLocked is a store another process holds for longer than the wait.
	ErrLocked = errors.New("checkpoint store is locked by another process")
)
