package mcpserver

import "errors"

// Sentinel errors. Test with errors.Is.
var (
	// ErrNoFolder is a server built without a project folder.
	ErrNoFolder = errors.New("no project folder")
	// ErrBadArguments is a tool call whose arguments are invalid; the
	// client gets an isError result saying what is wrong.
	ErrBadArguments = errors.New("bad arguments")
)
