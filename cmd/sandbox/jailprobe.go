package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

// essentialLayers are the layers without which connector mode does not
// jail allowed commands: Landlock (what the command may write and read)
// and the mount namespace (hidden secrets and per-user state, private
// /tmp; it needs user namespaces). Any other missing layer is accepted
// for the jailed commands and reported by `sandbox doctor`.
var essentialLayers = []launcher.Layer{launcher.LayerLandlock, launcher.LayerMount}

// probeJail probes the jail's layers once and summarises what connector
// mode can do with them.
func probeJail() userstate.JailProbe {
	r := launcher.Probe()
	var p userstate.JailProbe
	var missing []string
	for _, l := range r.Layers {
		if l.Status == launcher.StatusOK {
			continue
		}
		essential := false
		for _, e := range essentialLayers {
			essential = essential || l.Layer == e
		}
		if essential {
			missing = append(missing, fmt.Sprintf("%s (%s: %s)", l.Layer, l.Status, l.Detail))
		} else {
			p.Degraded = append(p.Degraded, string(l.Layer))
		}
	}
	p.OK = len(missing) == 0
	if !p.OK {
		p.Why = "missing " + strings.Join(missing, ", ")
		p.Degraded = nil
	}
	return p
}

// recordJailProbe probes, records the result where the hook reads it, and
// returns one plain line for the human.
func recordJailProbe(st *userstate.State) (string, error) {
	p := probeJail()
	if err := st.WriteJailProbe(p); err != nil {
		return "", err
	}
	return jailProbeLine(p), nil
}

func jailProbeLine(p userstate.JailProbe) string {
	if !p.OK {
		return "the jail cannot be built on this machine (" + p.Why + "): in connector mode allowed commands run with your rights, checked by the policy's analyzer alone"
	}
	line := "allowed shell commands run in the project jail (Claude Code, Codex, Gemini CLI and the MCP server; see docs/AGENTS.md for the other agents)"
	if len(p.Degraded) > 0 {
		line += "; not enforced here: " + strings.Join(p.Degraded, ", ")
	}
	return line
}

// printJailProbe records the probe and prints its line (init).
func printJailProbe(out io.Writer, st *userstate.State) error {
	line, err := recordJailProbe(st)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "connector mode:", line)
	return nil
}

// connectorChecks are doctor's lines for connector mode: whether allowed
// commands run in the project jail here (probed again and recorded for
// the hook), and which agents' hooks can make them.
func connectorChecks() []check {
	c := check{Area: "connector", Name: "jailed commands"}
	p := probeJail()
	c.Status, c.Detail = statusOK, jailProbeLine(p)
	if !p.OK {
		c.Status = statusMissing
	}
	if st, err := userstate.Open(false); err == nil {
		if err := st.WriteJailProbe(p); err != nil {
			c.Detail += " (not recorded: " + err.Error() + ")"
		}
	}
	pol := check{Area: "connector", Name: "policy in force", Status: "info", Detail: policyInForce(p)}
	if !p.OK {
		pol.Status = "warn"
	}
	out := []check{c, pol}
	for _, a := range rewriters {
		st := "info"
		if !a.can {
			st = "warn"
		}
		out = append(out, check{Area: "connector", Name: a.agent, Status: st, Detail: a.detail})
	}
	return out
}

// rewriters say, per agent, whether its hook can replace a tool's input,
// which is what runs an allowed command in the project jail
// (docs/AGENTS.md has the details).
var rewriters = []struct {
	agent, detail string
	can           bool
}{
	{"claude", "PreToolUse updatedInput: allowed Bash commands run in the project jail", true},
	{"codex", "PreToolUse updatedInput: allowed shell commands run in the project jail (inside Codex's own sandbox too unless it runs with --sandbox danger-full-access)", true},
	{"gemini", "BeforeTool hookSpecificOutput.tool_input: allowed shell commands (run_shell_command) run in the project jail", true},
	{"cursor", "its hooks cannot replace a command: allowed commands run with your rights, checked by the analyzer alone (run `sandbox run -- cursor-agent` to jail them)", false},
	{"windsurf", "its hooks can only block: allowed commands run with your rights, checked by the analyzer alone", false},
}
