package launcher

import (
	"path/filepath"
	"strings"
)

// agentDirs are, per agent, the config and cache paths under the home
// directory that the agent writes as it runs (sessions, credentials
// refresh, caches). Missing ones are skipped.
var agentDirs = map[string][]string{
	"claude": {".claude", ".claude.json", ".claude.json.backup", ".cache/claude",
		".cache/claude-cli-nodejs", ".config/claude", ".local/share/claude", ".local/state/claude"},
	"codex":        {".codex"},
	"gemini":       {".gemini"},
	"cursor-agent": {".cursor", ".config/cursor", ".local/share/cursor-agent"},
}

// agentName is opts.Agent, else the base name of the command.
func agentName(o *Options) string {
	if o.Agent != "" {
		return o.Agent
	}
	if len(o.Argv) == 0 {
		return ""
	}
	return filepath.Base(o.Argv[0])
}

// AgentDirs returns the writable paths of agent under home.
func AgentDirs(agent, home string) []string {
	var out []string
	for _, rel := range agentDirs[strings.ToLower(agent)] {
		out = append(out, filepath.Join(home, rel))
	}
	return out
}

// ProtectedPaths are the project-relative paths that stay read-only inside
// the writable project: the bus, code that runs outside the jail later
// (git hooks and config, the files that send git elsewhere for them:
// commondir, alternates, info/; CI workflows, direnv, husky) and the
// agents' own configuration (hooks, MCP servers, permissions). The jail
// pins each whether it exists or not (see jailspec.FS.ReadOnly).
var ProtectedPaths = []string{
	".sandbox", ".git/hooks", ".git/config", ".git/commondir", ".git/info",
	".git/objects/info/alternates", ".github/workflows", ".envrc", ".husky",
	".claude", ".mcp.json", ".cursor", ".codex", ".gemini", ".windsurf", ".vscode",
}

// protectedFiles are the protected paths that name files, with the
// content of the placeholder that stands in for a missing one during a
// run: what the tool reads as "nothing configured" (a commondir of "."
// is the repository itself; git refuses an empty one).
var protectedFiles = map[string]string{
	".git/commondir": ".\n", ".git/objects/info/alternates": "", ".envrc": "",
	".mcp.json": "{\"mcpServers\": {}}\n",
}
