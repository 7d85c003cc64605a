package approver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// An approval must come from the human. An agent that can run an allowed
// `make`, `npm run` or `go test` can make its own Makefile, script or test
// run `sandbox approve` or `sandbox policy accept --yes`, and the audit
// log could not tell that from the human. So every command that decides
// looks at where it was started from and refuses when anything says
// "agent" or "jail": the environment markers agents set in their tools'
// processes (inherited by everything below them, so they are looked for
// in every ancestor's environment too, not only ours, which the agent
// could have scrubbed), the agents' own programs among the ancestors,
// and our own hook, MCP server, shims, `sandbox run` supervisor, jail
// init or broker (an approved command that runs `sandbox approve`).
// It is a check of what is visible, not a boundary: a process that
// double-forks away from its parents leaves only the environment marks
// behind. The boundary is the jail, which cannot read the per-user key
// that every decision needs (see docs/APPROVERS.md).

// Process is one process of an approver's ancestry.
type Process struct {
	PID  int
	Comm string   // the kernel's short name (/proc/PID/comm)
	Exe  string   // the executable's path, "" when unreadable
	Args []string // the command line
	Env  []string // its environment, nil when unreadable
}

// envMarkers are variables that agents (and our jail) set in the
// processes they start. A value of "" means any value.
var envMarkers = map[string]string{
	"SANDBOX_JAIL":                   "1", // our jail (launcher)
	"CLAUDECODE":                     "",  // Claude Code's Bash tool
	"CLAUDE_CODE_ENTRYPOINT":         "",
	"CODEX_SANDBOX":                  "", // Codex's sandboxed commands
	"CODEX_SANDBOX_NETWORK_DISABLED": "",
	"CODEX_MANAGED_BY_NPM":           "", // the codex launcher, inherited below it
	"CODEX_MANAGED_BY_BUN":           "",
	"GEMINI_CLI":                     "", // Gemini CLI's shell tool
	"CURSOR_AGENT":                   "", // cursor-agent
}

// agentPrograms are agent CLIs by executable or short name. IDEs are
// not listed: a human's terminal inside an editor is still a human's.
var agentPrograms = []string{"claude", "codex", "gemini", "cursor-agent", "aider", "opencode", "goose", "amp"}

// agentScripts are the packages of agents that run under node.
var agentScripts = []string{"@anthropic-ai/claude-code", "@openai/codex", "@google/gemini-cli", "claude-code/cli.js"}

// jailInitName is argv[0] of `sandbox run`'s jail init (jail_linux).
const jailInitName = "sandbox-jail-init"

// CheckHuman returns an error matching ErrNotHuman, saying why, when env
// (this process's environment) or ancestry (its parent first) shows an
// agent or a jail; self is the sandbox executable, whose presence above
// us means our own hook, MCP server, shim, supervisor or broker.
func CheckHuman(env []string, ancestry []Process, self string) error {
	if why := envMark(env); why != "" {
		return fmt.Errorf("%w (%s)", ErrNotHuman, why)
	}
	for _, p := range ancestry {
		if why := agentProcess(p, self); why != "" {
			return fmt.Errorf("%w (ancestor %d %s: %s)", ErrNotHuman, p.PID, safeName(p.Comm), why)
		}
	}
	return nil
}

// RefuseNonHuman is CheckHuman on this process, its real ancestry and
// its own executable.
func RefuseNonHuman() error {
	self, _ := os.Executable()
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	return CheckHuman(os.Environ(), Ancestry(os.Getpid()), self)
}

func envMark(env []string) string {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if want, ok := envMarkers[k]; ok && (want == "" || v == want) {
			return "environment has " + k
		}
	}
	return ""
}

func agentProcess(p Process, self string) string {
	if why := envMark(p.Env); why != "" {
		return why
	}
	names := []string{p.Comm}
	if p.Exe != "" {
		names = append(names, filepath.Base(p.Exe))
	}
	if len(p.Args) > 0 {
		names = append(names, filepath.Base(p.Args[0]))
		if p.Args[0] == jailInitName {
			return "the jail's init"
		}
	}
	for _, n := range names {
		if slices.Contains(agentPrograms, n) {
			return "an agent's program"
		}
	}
	for _, a := range p.Args {
		for _, s := range agentScripts {
			if strings.Contains(a, s) {
				return "an agent's program"
			}
		}
	}
	if self != "" && p.Exe == self && hostsOthers(p.Args) {
		return "the sandbox itself (hook, MCP server, shim, `sandbox run` or a broker running an approved command)"
	}
	return ""
}

// hostingCommands are our commands under which other programs run: the
// agent's hook and MCP server, the jail's supervisor, and the approvers
// whose broker runs approved commands.
var hostingCommands = []string{"hook", "mcp", "run", "agents", "watch", "serve", "approve", "relay"}

// hostsOthers reports whether the sandbox binary started with args is a
// shim (called by a tool's name) or one of hostingCommands. Other uses of
// the binary above an approver (a test binary of ours, `sandbox help`)
// are not an agent.
func hostsOthers(args []string) bool {
	if len(args) == 0 {
		return true // unreadable: assume the worst
	}
	if !strings.HasPrefix(filepath.Base(args[0]), "sandbox") {
		return true // a PATH shim: git, npm, curl, ...
	}
	for _, a := range args[1:] {
		if !strings.HasPrefix(a, "-") {
			return slices.Contains(hostingCommands, a)
		}
	}
	return false
}

// safeName keeps a process name printable.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
