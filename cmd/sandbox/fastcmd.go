package main

import "github.com/spf13/cobra"

// fastCommands are the commands run as short processes on hot paths (a
// script asking the policy, the run-mode supervisor): when argv names one
// of them, the root gets only that subcommand instead of the whole tree
// of flags and commands, which costs about 0.1-0.2 ms at every start.
// Help, completion and unknown commands still build the whole tree.
var fastCommands = map[string]func() *cobra.Command{
	"check":   newCheckCmd,
	"run":     newRunCmd,
	"version": newVersionCmd,
}

// newRootCmdFor is the root for args (without the program name).
func newRootCmdFor(args []string) *cobra.Command {
	if len(args) > 0 {
		if c, ok := fastCommands[args[0]]; ok {
			root := newRootWith([]func() *cobra.Command{c})
			// argv names c: cobra's `completion` command (four shells'
			// subcommands and their flags) cannot be asked for
			root.CompletionOptions.DisableDefaultCmd = true
			return root
		}
	}
	return newRootCmd()
}
