package shims

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Exit codes of a shim besides the real tool's.
const (
	// ExitRefused: denied by the policy or a human, withdrawn, expired, or
	// the escalation could not be made.
	ExitRefused = 126
	// ExitNotFound: allowed, but the real tool is not on PATH.
	ExitNotFound = 127
)

// MaybeRun runs the shim and exits when this process was called under a
// shim's name (argv[0]); otherwise it returns at once. main calls it
// first: it costs a string comparison for every other invocation.
func MaybeRun() {
	if len(os.Args) == 0 {
		return
	}
	name := commandName(os.Args[0])
	if !isShim(name) {
		return
	}
	os.Exit(Main(name, os.Args))
}

// Main runs the shim called name with argv (argv[0] as the caller spelled
// it) and returns its exit code; on an allowed call it does not return.
func Main(name string, argv []string) int {
	debug.SetGCPercent(-1) // the allowed path is short; escalate turns it back on
	path := filepath.SplitList(os.Getenv("PATH"))
	s, err := locate(name, argv[0], path)
	if err != nil && s.folder.Root == "" {
		return refuse("%s: no sandbox project here (%v)", name, err)
	}
	call := append([]string{name}, argv[1:]...)
	cwd, err := os.Getwd()
	if err != nil {
		return refuse("%s: current directory: %v", name, err)
	}
	d := s.classify(call, cwd)
	switch d.Decision {
	case policy.Allow:
		return s.execReal(name, argv, path, call)
	case policy.Deny:
		return refuse("`%s` is denied by the policy: %s", show(call), reasons(d))
	}
	debug.SetGCPercent(100)
	return s.escalate(call, cwd, d)
}

// classify decides call; a missing or bad policy cache escalates it.
func (s *site) classify(call []string, cwd string) policy.Decision {
	e, err := loadEngine(s.dir, s.folder.Root)
	if err != nil {
		return policy.Decision{Decision: policy.Escalate, Reasons: []string{err.Error()}}
	}
	return e.ForJail().Argv(call, cwd) // a shim runs in run mode's jail: the jailed rules count
}

// execReal replaces the shim with the real tool, first remembering the
// allowed call for the fast path.
func (s *site) execReal(name string, argv, path, call []string) int {
	real, err := s.lookReal(name, path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %s: %v\n", name, err)
		return ExitNotFound
	}
	s.rememberAllow(call)
	err = execTool(real, argv)
	fmt.Fprintf(os.Stderr, "sandbox: %s: exec %s: %v\n", name, real, err)
	return ExitRefused
}

// refuse prints a message and returns ExitRefused.
func refuse(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "sandbox: "+format+"\n", args...)
	return ExitRefused
}

// show is argv as one escaped line, shortened for a message.
func show(argv []string) string {
	return queue.Summarize(&queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Argv: argv}})
}

func reasons(d policy.Decision) string {
	if len(d.Reasons) == 0 {
		return "no reason given"
	}
	out := d.Reasons[0]
	for _, r := range d.Reasons[1:] {
		out += "; " + r
	}
	return display.EscapeLine(out)
}
