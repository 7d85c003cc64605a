package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/spf13/cobra"
)

type checkOptions struct {
	dir      dirFlag
	json     bool
	jailed   bool // --jailed: decide as for a command run in the project jail
	unjailed bool // --unjailed: decide as for one run with the user's rights
	script   string
	write    string
	read     string
	url      string
	mcp      string
	cwd      string
	argv     []string
	given    []string // which inputs were given
	out, err io.Writer
}

func newCheckCmd() *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [--dir DIR] [--json] [--jailed|--unjailed] (--script TEXT | --write PATH | --read PATH | --url URL | --mcp TOOL | -- ARGV...)",
		Short: "Ask the folder's policy about a command, file, destination or MCP tool (exit 0 allow, 10 escalate, 20 deny)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); len(args) > 0 && dash != 0 {
				return usageErrorf("%s", checkArgsHint(args))
			}
			opts.argv, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			for _, name := range []string{"script", "write", "read", "url", "mcp"} {
				if cmd.Flags().Changed(name) {
					opts.given = append(opts.given, "--"+name)
				}
			}
			if len(args) > 0 {
				opts.given = append(opts.given, "-- ARGV")
			}
			return runCheck(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&opts.json, "json", false, `print {"decision","reasons","parts","jailed","why"} as JSON`)
	fl.BoolVar(&opts.jailed, "jailed", false, "decide a command as one that runs in the project jail (default: when the jail can be built here)")
	fl.BoolVar(&opts.unjailed, "unjailed", false, "decide a command as one that runs with your rights (default: when the jail cannot be built here)")
	fl.StringVar(&opts.script, "script", "", "a bash script")
	fl.StringVar(&opts.write, "write", "", "a file to be written")
	fl.StringVar(&opts.read, "read", "", "a file to be read")
	fl.StringVar(&opts.url, "url", "", "a URL or host:port to be reached")
	fl.StringVar(&opts.mcp, "mcp", "", "an MCP tool name (mcp__server__tool)")
	fl.StringVar(&opts.cwd, "cwd", "", "working directory of the command (default: the current directory)")
	return cmd
}

func runCheck(_ context.Context, opts *checkOptions) error {
	if len(opts.given) != 1 {
		return usageErrorf("check: give exactly one of --script, --write, --read, --url, --mcp or -- ARGV")
	}
	if opts.jailed && opts.unjailed {
		return usageErrorf("check: --jailed and --unjailed exclude each other")
	}
	f, err := opts.dir.resolve(nil)
	if err != nil {
		return err
	}
	if opts.cwd == "" {
		if opts.cwd, err = os.Getwd(); err != nil {
			return fmt.Errorf("check: %w", err)
		}
	}
	e, err := loadEngine(f, opts.err)
	if err != nil {
		return err
	}
	var jail checkJail
	if isCommand(opts) {
		if jail = jailForCheck(opts); jail.jailed {
			e = e.ForJail()
		}
	}
	d := decide(e, opts)
	if err := printDecision(opts, d, jail.line); err != nil {
		return err
	}
	return exitWith(checkExitCode(d.Decision))
}

// loadEngine loads the folder's engine and prints its warnings. Without a
// usable per-user state, nothing counts as accepted: everything escalates.
func loadEngine(f folder.Folder, errw io.Writer) (*policy.Engine, error) {
	st, err := userstate.Open(false)
	if errors.Is(err, fs.ErrNotExist) { // a new machine: the one message of a fresh clone
		fmt.Fprintf(errw, "sandbox: warning: %s\n", store.NotAcceptedMessage)
		return policy.New(f.Root, nil, policy.Options{Logger: stderrLogger(errw)})
	}
	if err != nil {
		fmt.Fprintf(errw, "sandbox: warning: %s; nothing is accepted here, everything escalates\n", display.EscapeLine(err.Error()))
		return policy.New(f.Root, nil, policy.Options{Logger: stderrLogger(errw)})
	}
	e, warns, err := store.Load(f, st, stderrLogger(errw))
	for _, w := range warns {
		fmt.Fprintf(errw, "sandbox: warning: %s\n", display.Escape(w.Message))
	}
	return e, err
}

func decide(e *policy.Engine, opts *checkOptions) policy.Decision {
	switch opts.given[0] {
	case "--script":
		return e.Shell(opts.script, opts.cwd)
	case "--write":
		return e.Write(opts.write, opts.cwd)
	case "--read":
		return e.Read(opts.read, opts.cwd)
	case "--url":
		return e.NetworkURL(opts.url)
	case "--mcp":
		return e.MCP(opts.mcp)
	}
	return e.Argv(opts.argv, opts.cwd)
}

// isCommand reports a shell command to check (the jail applies to
// commands; the agent's own writes, reads and fetches happen outside it).
func isCommand(opts *checkOptions) bool {
	return opts.given[0] == "--script" || opts.given[0] == "-- ARGV"
}

func checkExitCode(t policy.Tier) int {
	switch t {
	case policy.Allow:
		return exitCheckAllow
	case policy.Deny:
		return exitCheckDeny
	}
	return exitCheckEscalate
}

// checkJSON is check's JSON: the decision, the policy in force (for a
// command) and why it asked.
type checkJSON struct {
	policy.Decision
	Policy string      `json:"policy,omitempty"`
	Why    *policy.Why `json:"why,omitempty"`
}

func printDecision(opts *checkOptions, d policy.Decision, policyLine string) error {
	w, hasWhy := d.Why()
	if opts.json {
		out := checkJSON{Decision: d, Policy: policyLine}
		if hasWhy {
			out.Why = &w
		}
		return json.NewEncoder(opts.out).Encode(out)
	}
	fmt.Fprintf(opts.out, "%s\n", d.Decision)
	for _, p := range d.Parts {
		fmt.Fprintf(opts.out, "  %-8s %-7s %s%s\n", p.Decision, p.Trigger, display.EscapeLine(p.Subject), jailedMark(p))
		fmt.Fprintf(opts.out, "           %s: %s\n", display.EscapeLine(p.Rule), display.EscapeLine(p.Reason))
		fmt.Fprintf(opts.out, "           effect: %s\n", display.EscapeLine(p.Effect))
	}
	if len(d.Parts) == 0 {
		for _, r := range d.Reasons {
			fmt.Fprintf(opts.out, "  %s\n", display.EscapeLine(r))
		}
	}
	if hasWhy {
		fmt.Fprintf(opts.out, "why: %s\n", display.EscapeLine(w.String()))
	}
	if policyLine != "" {
		fmt.Fprintf(opts.out, "%s\n", policyLine)
	}
	return nil
}

// jailedMark says, on a part's line, whether it runs in the jail.
func jailedMark(p policy.Part) string {
	if p.Trigger != policy.Shell {
		return ""
	}
	if p.Jailed {
		return "  [jailed]"
	}
	return "  [unjailed]"
}

// checkArgsHint says how to give a command to check: `check 'git status'`
// is one word with a space, which is what a shell script looks like.
func checkArgsHint(args []string) string {
	if len(args) == 1 && strings.ContainsAny(args[0], " \t|;&<>$") {
		q := display.QuoteArg(args[0])
		return fmt.Sprintf("check: %s is a shell command line: check it with --script %s (or as words after --: sandbox check -- %s)",
			q, q, display.EscapeLine(args[0]))
	}
	return "check: a command to check goes after -- (sandbox check -- git push), or a shell command line after --script"
}
