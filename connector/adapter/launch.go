package adapter

import (
	"slices"
	"strings"
)

// Launch is how `sandbox agents` starts an agent as a command: the one
// place that knows each agent's command line for a headless task, an
// interactive session and a resumed one.
type Launch struct {
	// Command is the executable, looked up on the jail's PATH.
	Command string
	// Headless are the arguments before the task that run it to
	// completion and exit (claude -p TASK, codex exec TASK).
	Headless []string
	// Interactive are the arguments before a first prompt given to an
	// interactive session; none when the agent takes it as its argument.
	Interactive []string
	// Joined: the last argument of Headless and Interactive is an option
	// that takes the task as its value, given as one word (--prompt=TASK),
	// so that no task is read as another option.
	Joined bool
	// Resume are the arguments, first after Command, that continue the
	// agent's last session in the same directory (claude --continue); nil
	// when the agent has no such flag, and a resume starts afresh.
	Resume []string
}

// Argv is the command line that starts the agent: headless (task
// required) or interactive (task optional), resuming its last session
// when resume is set and the agent can.
func (l Launch) Argv(task string, headless, resume bool) []string {
	argv := []string{l.Command}
	if resume {
		argv = append(argv, l.Resume...)
	}
	before := l.Interactive
	switch {
	case headless:
		before = l.Headless
	case task == "":
		return slices.Clip(argv)
	}
	if l.Joined && len(before) > 0 {
		n := len(before) - 1
		return append(append(argv, before[:n]...), before[n]+"="+task)
	}
	argv = append(argv, before...)
	if strings.HasPrefix(task, "-") {
		argv = append(argv, "--") // a task is never an option
	}
	return append(argv, task)
}

// Launchable lists the registered agents that `sandbox agents` can start,
// by name.
func Launchable() []Agent {
	var out []Agent
	for _, a := range Agents() {
		if a.Launch != nil {
			out = append(out, a)
		}
	}
	return out
}
