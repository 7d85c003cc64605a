package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"
)

// commands lists the constructors of every top-level subcommand, in the
// order `sandbox help` shows them.
var commands = []func() *cobra.Command{
	newInitCmd,
	newUninstallCmd,
	newDoctorCmd,
	newRunCmd,
	newAgentsCmd,
	newWatchCmd,
	newServeCmd,
	newListCmd,
	newShowCmd,
	newApproveCmd,
	newDenyCmd,
	newResultCmd,
	newRequestCmd,
	newHookCmd,
	newHookdCmd,
	newMCPCmd,
	newRestoreCmd,
	newCheckpointsCmd,
	newCheckCmd,
	newPolicyCmd,
	newRememberedCmd,
	newAuditCmd,
	newKeysCmd,
	newRelayCmd,
	newVersionCmd,
}

func newRootCmd() *cobra.Command {
	root := newRootWith(commands)
	// cobra adds its `completion` command (four shells) only at Execute,
	// after usageErrors saw the tree: add it now so that its usage errors
	// are typed too. The fast commands' roots go without it (fastcmd.go).
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			usageErrors(c)
		}
	}
	return root
}

// newRootWith builds the root command with the given subcommands.
func newRootWith(cs []func() *cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:           "sandbox",
		Short:         "Put a human between an AI coding agent and every privileged thing it tries",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(), // cmd_version.go
	}
	root.SetVersionTemplate("sandbox {{.Version}}\n")
	for _, c := range cs {
		root.AddCommand(c())
	}
	usageErrors(root) // exit.go
	return root
}

// execute runs the CLI with args (args[0] is the program) and returns the
// process exit code. Signals become context cancellation here, at the root.
func execute(args []string) int {
	ctx, stop := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM) // signals.go
	defer stop()
	root := newRootCmdFor(args[1:]) // fastcmd.go
	root.SetArgs(args[1:])
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	if err != nil && !errors.As(err, new(*exitError)) {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
	}
	if ee := (*exitError)(nil); errors.As(err, &ee) && ee.msg != "" {
		fmt.Fprintf(os.Stderr, "sandbox: %s\n", ee.msg)
	}
	return code
}
