package main

import (
	"log/slog"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// verdict is what the folder's policy says about a request.
type verdict struct {
	deny    bool
	reasons []string
}

// classify asks the folder's accepted policy about req (built-in rules
// only, everything else escalating, when nothing is accepted yet).
func classify(f folder.Folder, req *queue.Request, logger *slog.Logger) (verdict, error) {
	st, err := userstate.Open(true)
	if err != nil {
		return verdict{}, err
	}
	e, _, err := store.Load(f, st, logger)
	if err != nil {
		return verdict{}, err
	}
	d := approver.Classify(e, req)
	return verdict{deny: d.Decision == policy.Deny, reasons: d.Reasons}, nil
}
