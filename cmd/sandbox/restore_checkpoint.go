package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// restoreCheckpoint is `restore --checkpoint ID`: the plan first (every
// path that would change, and every conflict, with its full path), then,
// with --yes only, the restore.
func restoreCheckpoint(opts *restoreOptions, f folder.Folder) error {
	store, err := openCheckpoints(f, os.Stderr)
	if err != nil {
		return err
	}
	ck, err := store.Get(opts.ckID)
	if errors.Is(err, checkpoint.ErrBadID) || errors.Is(err, checkpoint.ErrNotFound) {
		return usageErrorf("restore: %s (see `sandbox checkpoints`)", oneLine(err.Error()))
	}
	if err != nil {
		return err
	}
	plan, err := store.Plan(ck)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.out, "checkpoint %s of %s, session %s, tool call %s:\n  %s\n", ck.ID,
		ck.Time.Local().Format("2006-01-02 15:04:05"), orDash(ck.Session), orDash(ck.ToolUseID), display.EscapeLine(ck.Command))
	changes, conflicts, unchanged := 0, 0, 0
	for _, a := range plan {
		switch {
		case a.Changes():
			changes++
		case a.Op == checkpoint.OpConflict:
			conflicts++
		default:
			unchanged++
			continue
		}
		note := ""
		if a.Note != "" {
			note = "  (" + display.EscapeLine(a.Note) + ")"
		}
		fmt.Fprintf(opts.out, "%-9s %s%s\n", a.Op, display.EscapeLine(filepath.Join(store.Root(), filepath.FromSlash(a.Path))), note)
	}
	for _, n := range ck.NotKept {
		fmt.Fprintf(opts.out, "not kept  %s  (%s)\n", display.EscapeLine(filepath.Join(store.Root(), filepath.FromSlash(n.Path))), display.EscapeLine(n.Reason))
	}
	if more := ck.NotKeptCount - len(ck.NotKept); more > 0 {
		fmt.Fprintf(opts.out, "not kept  ... and %d more path(s)\n", more)
	}
	if unchanged > 0 {
		fmt.Fprintf(opts.out, "%d path(s) already as kept\n", unchanged)
	}
	switch {
	case changes == 0:
		fmt.Fprintln(opts.out, "nothing to restore")
		return conflictError(conflicts)
	case !opts.yes:
		fmt.Fprintf(opts.out, "dry run: %d path(s) in %s would change; run again with --yes to apply\n", changes, display.EscapeLine(store.Root()))
		return nil
	}
	if err := store.Apply(plan); err != nil {
		return &exitError{exitFailure, "restore: " + oneLine(err.Error())}
	}
	fmt.Fprintf(opts.out, "restored %d path(s)\n", changes)
	return conflictError(conflicts)
}

func conflictError(n int) error {
	if n == 0 {
		return nil
	}
	return &exitError{exitFailure, fmt.Sprintf("restore: %d path(s) left alone (conflicts above)", n)}
}
