package main

import (
	"context"
	"io"
	"os"
	"sort"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/cursor"
	"github.com/sandbox-dev/sandbox/connector/gemini"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/windsurf"
)

// hookAdapter is an agent whose hook protocol is not Claude Code's: run
// answers one event and returns the exit code; refuse answers, in the
// agent's own form, an event run could not decide (fail closed).
type hookAdapter struct {
	run    func(ctx context.Context, in io.Reader, out, errOut io.Writer, open adapter.Opener) (int, error)
	refuse func(out, errOut io.Writer, err error) int
	// jails: the agent's hook can replace a shell command, so allowed
	// ones run in the project jail (jailExe).
	jails bool
}

// hookAdapters are the other agents `sandbox hook AGENT` answers for.
var hookAdapters = map[string]hookAdapter{
	cursor.Name:   {run: cursor.Run, refuse: cursor.Refuse},
	gemini.Name:   {run: gemini.Run, refuse: gemini.Refuse, jails: true},
	windsurf.Name: {run: windsurf.Run, refuse: windsurf.Refuse},
}

// runHookAdapter answers one event of an adapter's agent; an error
// becomes the agent's refusal.
func runHookAdapter(ctx context.Context, opts *hookOptions, agent string, a hookAdapter) error {
	open := func(ctx context.Context, cwd string, classify bool) (*hook.Core, error) {
		exe, err := jailExe(claude.Profile{UpdatesInput: a.jails})
		if err != nil {
			return nil, err
		}
		return live.Open(ctx, cwd, live.Options{Agent: agent, Classify: classify, Wait: opts.wait, BeforeWait: opts.beforeWait,
			DeferAllow: opts.deferAllow, Log: hookLogger(), Exe: exe, ProbeJail: probeJail})
	}
	code, err := a.run(ctx, opts.stdin, opts.stdout, os.Stderr, open)
	if err != nil {
		code = a.refuse(opts.stdout, os.Stderr, err)
	}
	if code != 0 {
		return exitWith(code)
	}
	return nil
}

// adapterAgents lists the adapters' agents.
func adapterAgents() []string {
	names := make([]string, 0, len(hookAdapters))
	for n := range hookAdapters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
