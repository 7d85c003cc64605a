package main

import (
	"os"

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
