package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/install"
)

// ErrNotAvailable is an init flag, or a manifest entry, that names no
// registered agent.
var ErrNotAvailable = errors.New("integration not available yet")

// Agent is one agent (or the MCP server) that `sandbox init --NAME`
// wires into a project, `sandbox uninstall` unwires, and, when it has a
// hook, `sandbox hook NAME` answers for. Each agent's package registers
// its Agent from an init function; nothing else lists the agents.
type Agent struct {
	// Name is the init flag without dashes and the hook's argument:
	// "claude", "mcp", "codex", ...
	Name string
	// Wires says what `sandbox init --NAME` does (the flag's help).
	Wires string
	// Install merges the agent's wiring into the project and takes it out.
	Install install.Integration
	// Hook answers the agent's hook events; nil for an integration
	// without hooks (the MCP server's).
	Hook *Hook
	// Launch is how `sandbox agents spawn --agent NAME` starts the agent;
	// nil for one it does not start (the MCP server, editors).
	Launch *Launch
}

// Hook is `sandbox hook NAME` for one agent.
type Hook struct {
	// Run answers one event read from stdin and returns the exit code. On
	// an error the caller answers with Refuse.
	Run func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, open Opener) (int, error)
	// Refuse answers, in the agent's own form, an event Run could not
	// decide (fail closed), and returns the exit code.
	Refuse func(stdout, stderr io.Writer, err error) int
	// Jails says whether the agent lets the hook replace a shell command,
	// so that an allowed one runs in the project jail: the core is then
	// opened with the sandbox binary to jail it with.
	Jails bool
}

var registry = struct {
	sync.Mutex
	agents map[string]Agent
}{agents: map[string]Agent{}}

// Register makes an agent available to init, uninstall and hook. It is
// called from the agent package's init function; a second agent of the
// same name, or one without a name or an Install, is a bug.
func Register(a Agent) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.agents[a.Name]; dup || a.Name == "" || a.Install == nil {
		panic(fmt.Sprintf("adapter.Register: agent %q registered twice, or without a name or an Install", a.Name))
	}
	registry.agents[a.Name] = a
}

// Lookup returns the agent named name.
func Lookup(name string) (Agent, bool) {
	registry.Lock()
	defer registry.Unlock()
	a, ok := registry.agents[name]
	return a, ok
}

// Installer returns the integration of the agent named name, or
// ErrNotAvailable.
func Installer(name string) (install.Integration, error) {
	if a, ok := Lookup(name); ok {
		return a.Install, nil
	}
	return nil, fmt.Errorf("--%s: %w", name, ErrNotAvailable)
}

// Agents lists the registered agents by name.
func Agents() []Agent {
	registry.Lock()
	defer registry.Unlock()
	out := make([]Agent, 0, len(registry.agents))
	for _, a := range registry.agents {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
