package main

import (
	"errors"
	"fmt"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/spf13/cobra"
)

// Every exit code of every command. docs/CONNECTOR.md "Exit codes" is the
// same table for users; keep the two together. The shims (shims.ExitRefused,
// shims.ExitNotFound) and the jail's init (jail_linux: 125, 126, 127) exit
// before any command runs, so their codes live in those packages; the docs
// table lists them too.
const (
	exitOK      = 0
	exitFailure = 1 // an error, printed on stderr
	exitUsage   = 2 // bad flags or arguments (a *usageError); nothing was done
	exitNoDir   = 3 // no .sandbox/ folder found
	// exitCIDenied is `sandbox run --ci --fail-on-deny`'s exit code when
	// the command succeeded but an escalation was denied.
	exitCIDenied = 4
	// exitNotHuman: a command that decides (approve, deny, watch, serve,
	// policy accept, policy suggest --write, remembered forget) was started
	// from inside a jail or from an agent's process tree; it did nothing.
	exitNotHuman = 5

	// `sandbox check`: the decision.
	exitCheckAllow    = exitOK
	exitCheckEscalate = 10
	exitCheckDeny     = 20

	// `sandbox request`, `result` and the shims when the command itself
	// did not decide the code (docs/APPROVER.md).
	exitTimeout     = 124 // still pending when the wait ended; expired; withdrawn
	exitNotRun      = 125 // approved but failed to run, or interrupted
	exitDenied      = 126 // denied by a human, a rule or a remembered decision
	exitInterrupted = 130 // Ctrl-C

	// exitHookRefused is the only exit code the agents treat as "refuse
	// the call" when a hook fails; every other code lets the call through.
	exitHookRefused = 2

	// exitAuditBad is `sandbox audit verify` on a log that fails verification.
	exitAuditBad = exitFailure
)

// exitError carries a specific exit code out of a command. msg, when not
// empty, is printed on stderr; an empty msg exits quietly.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string {
	if e.msg == "" {
		return "exit status"
	}
	return e.msg
}

// exitWith returns an error that makes the process exit with code and
// print nothing more.
func exitWith(code int) error { return &exitError{code: code} }

// usageError is a bad flag or argument: the command did nothing and exits
// exitUsage. cobra's own flag and argument errors become one through
// usageErrors; our commands make theirs with usageErrorf.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf formats a usage error (%w wraps as fmt.Errorf does).
func usageErrorf(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// asUsage marks err, when not nil, as a usage error.
func asUsage(err error) error {
	if err == nil || errors.As(err, new(*usageError)) {
		return err
	}
	return &usageError{err: err}
}

// usageErrors makes every flag and argument error of cmd and its
// subcommands a *usageError: the flag parser's (SetFlagErrorFunc), each
// command's Args validator, and a group command's unknown subcommand
// (cobra reports that with a plain error, or shows the help and exits 0).
func usageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
	walkCommands(cmd, func(c *cobra.Command) {
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = unknownSubcommand
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
		if args := c.Args; args != nil {
			c.Args = func(c *cobra.Command, a []string) error { return asUsage(args(c, a)) }
		}
	})
}

// unknownSubcommand is the Args of a command that only groups others.
func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unknown command %q for %q", args[0], c.CommandPath())
	}
	return nil
}

func walkCommands(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, f)
	}
}

// exitCode is the one place that maps errors to exit codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, new(*usageError)):
		return exitUsage
	case errors.Is(err, folder.ErrNotFound):
		return exitNoDir
	case errors.Is(err, approver.ErrNotHuman):
		return exitNotHuman
	}
	return exitFailure
}
