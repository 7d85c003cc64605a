package main

import (
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// verdict is what the folder's policy says about a request.
type verdict struct {
	deny    bool
	reasons []string
}

// classify asks the folder's policy about req; the zero verdict (escalate,
// no reasons) when no engine could be loaded.
func classify(f folder.Folder, req *queue.Request) (verdict, error) {
	return verdict{}, nil
}
