package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type hookOptions struct {
	agent      string
	wait       time.Duration
	deferAllow bool
	beforeWait func() // arms the signals (hookMain); nil under cobra, whose context has them
	stdin      io.Reader
	stdout     io.Writer
}

func (o *hookOptions) bind(fs *pflag.FlagSet) {
	fs.DurationVar(&o.wait, "wait", 0, fmt.Sprintf("how long to wait for a human (default: the policy's hook.wait, else %s; at most %s)", hook.DefaultWait, hook.MaxWait))
	fs.BoolVar(&o.deferAllow, "defer-allow", false, "let the agent's own permission prompts decide allowed calls instead of pre-approving them")
}

func newHookCmd() *cobra.Command {
	opts := &hookOptions{}
	cmd := &cobra.Command{
		Use:   "hook AGENT",
		Short: "Answer one hook event of an agent (run by the agent, installed by `sandbox init`)",
		Long: "Reads one hook event (JSON) on stdin and answers on stdout. Any failure exits 2 with one line\n" +
			"on stderr, which the agent treats as a refusal. Agents: " + strings.Join(hookAgents(), ", ") + ".",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.agent, opts.stdin, opts.stdout = args[0], cmd.InOrStdin(), cmd.OutOrStdout()
			return runHook(cmd.Context(), opts)
		},
	}
	opts.bind(cmd.Flags())
	return cmd
}

// hookAgents are the registered agents that have a hook.
func hookAgents() []string {
	var names []string
	for _, a := range adapter.Agents() {
		if a.Hook != nil {
			names = append(names, a.Name)
		}
	}
	return names
}

// runHook answers one event of a registered agent's hook; an error
// becomes the agent's refusal (exit 2 for every agent but one that
// refuses in its answer).
func runHook(ctx context.Context, opts *hookOptions) error {
	a, ok := adapter.Lookup(opts.agent)
	if !ok || a.Hook == nil {
		return &exitError{exitHookRefused, fmt.Sprintf("hook: unknown agent %q (known: %s)", opts.agent, strings.Join(hookAgents(), ", "))}
	}
	h := a.Hook
	open := hookOpener(a, live.Options{Wait: opts.wait, DeferAllow: opts.deferAllow, BeforeWait: opts.beforeWait, Log: hookLogger()})
	code, err := h.Run(ctx, opts.stdin, opts.stdout, os.Stderr, open)
	if err != nil {
		code = h.Refuse(opts.stdout, os.Stderr, err)
	}
	if code != 0 {
		return exitWith(code)
	}
	return nil
}

// hookOpener opens the core for one event of agent a with base's
// options: the agent's name, whether the event decides, and for an agent
// whose hook can replace a command the binary to jail it with (base.Exe
// when set, else this one).
func hookOpener(a adapter.Agent, base live.Options) func(context.Context, string, bool) (*hook.Core, error) {
	return func(ctx context.Context, cwd string, classify bool) (*hook.Core, error) {
		o := base
		o.Agent, o.Classify = a.Name, classify
		if !a.Hook.Jails {
			o.Exe, o.RunPort = "", 0
		} else if o.Exe == "" {
			exe, err := jailExe()
			if err != nil {
				return nil, err
			}
			o.Exe = exe
		}
		if o.Exe != "" {
			o.ProbeJail = probeJail
		}
		return live.Open(ctx, cwd, o)
	}
}

// jailExe is the binary the allowed shell commands of an agent whose
// hook can replace a command are jailed with: this one. The others'
// commands run as they came (no Exe), and the core must not tell the
// model otherwise.
func jailExe() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the sandbox binary (allowed commands run in its jail): %w", err)
	}
	return exe, nil
}

// hookLogger logs to stderr when SANDBOX_HOOK_DEBUG is set (agents show a
// hook's stderr only in their debug views), else nowhere.
func hookLogger() *slog.Logger {
	if os.Getenv("SANDBOX_HOOK_DEBUG") == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// hookMain is the fast path main takes for `sandbox hook ...`: the hook
// runs on every tool call, so it skips building the whole command tree.
func hookMain(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "sandbox: hook: bug: panic: %v\n", r)
			code = exitHookRefused
		}
	}()
	opts := &hookOptions{stdin: os.Stdin, stdout: os.Stdout}
	fs := pflag.NewFlagSet("sandbox hook", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.bind(fs)
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		return execute(append([]string{"sandbox", "hook"}, args...)) // cobra explains usage
	}
	opts.agent = fs.Arg(0)
	ctx, arm, stop := ignoreUntilArmed(context.Background(), os.Interrupt, syscall.SIGTERM) // signals.go
	defer stop()
	opts.beforeWait = arm
	err := runHook(ctx, opts)
	if ee := (*exitError)(nil); err != nil && !(errors.As(err, &ee) && ee.msg == "") {
		fmt.Fprintf(os.Stderr, "sandbox: %s\n", err)
	}
	return exitCode(err)
}
