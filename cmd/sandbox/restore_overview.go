package main

import (
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/originals"
)

// restoreOverview is `sandbox restore` with nothing named: what could be
// restored (the originals kept before edits, the checkpoints kept before
// destructive commands) and how, rather than a usage error.
func restoreOverview(opts *restoreOptions, f folder.Folder) error {
	entries, _, err := originals.Open(f).Entries()
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		fmt.Fprintln(opts.out, "No originals kept (the hooks keep a file as it was before the agent first edits it).")
	} else {
		fmt.Fprintf(opts.out, "Originals kept before the agent's edits (%d):\n", len(entries))
		if err := listOriginals(opts.out, originals.Open(f)); err != nil {
			return err
		}
	}
	fmt.Fprintln(opts.out)
	if store, err := openCheckpoints(f, opts.err); err == nil {
		if list, _, err := store.List(""); err == nil && len(list) > 0 {
			fmt.Fprintf(opts.out, "Checkpoints kept before destructive commands (%d):\n", len(list))
			if err := checkpointTable(opts.out, list); err != nil {
				return err
			}
			fmt.Fprintln(opts.out)
		} else if err == nil {
			fmt.Fprintln(opts.out, "No checkpoints kept.")
			fmt.Fprintln(opts.out)
		}
	}
	fmt.Fprintln(opts.out, "Restore with: sandbox restore PATH... | --session ID | --all | --checkpoint ID  (a dry run; add --yes to apply)")
	return nil
}
