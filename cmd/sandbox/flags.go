package main

import (
	"os"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/spf13/cobra"
)

// dirFlag is the --dir flag every folder command takes.
type dirFlag struct {
	dir string
}

func (d *dirFlag) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.dir, "dir", "", "project folder (default: nearest .sandbox/ upward)")
}

// resolve finds the folder from --dir, the first positional argument (for
// commands whose arguments are folders) or the current directory upward.
func (d *dirFlag) resolve(args []string) (folder.Folder, error) {
	f, err := folder.Resolve(d.dir, args)
	if err == nil && d.dir == "" && len(args) == 0 {
		noteFolderInForce(os.Stderr, f) // folder_note.go
	}
	return f, err
}

// isUsageError recognises cobra's flag and argument errors.
func isUsageError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown flag") || strings.HasPrefix(s, "unknown shorthand") ||
		strings.HasPrefix(s, "unknown command") || strings.Contains(s, "flag needs an argument") ||
		strings.HasPrefix(s, "accepts ") || strings.HasPrefix(s, "requires at least") ||
		strings.HasPrefix(s, "invalid argument")
}
