package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// holdApprover marks f as watched by this approver (watch, serve) until
// the returned function runs. Failing to mark it only costs the waiters'
// "nobody is watching" hint, so it is logged, not fatal.
func holdApprover(f folder.Folder, logger *slog.Logger) func() {
	release, err := f.HoldApprover()
	if err != nil {
		logger.Debug("cannot mark the folder as watched", "folder", f.Root, "err", err)
		return func() {}
	}
	return release
}

// warnIfNobodyWatches prints, for `sandbox request` and the like, that no
// approver is watching f and how to start one.
func warnIfNobodyWatches(w io.Writer, f folder.Folder) {
	if f.ApproverWatching() == folder.PresenceNobody {
		fmt.Fprintf(w, "sandbox: %s\n", display.EscapeLine(f.HowToApprove()))
	}
}
