package launcher

import (
	"path/filepath"
	"strings"
)

// profile is what the launcher knows of one agent: the variable that
// carries its own API key (which it needs to work in the jail), where its
// configuration lives, what of that it writes as it runs (sessions,
// caches, token refresh: writable) and what makes code run the next time
// it starts, in the jail or not (settings with hooks, MCP registrations,
// commands, plugins, its binaries: read-only).
type profile struct {
	// Keys are the variables the agent reads its credentials from.
	Keys []string
	// ConfigEnv moves the config dir (CLAUDE_CONFIG_DIR, CODEX_HOME).
	ConfigEnv string
	// ConfigDir is the config dir under the home directory.
	ConfigDir string
	// Writable are home-relative trees the agent writes besides ConfigDir.
	Writable []string
	// ReadOnly are ConfigDir-relative names that stay read-only.
	ReadOnly []string
	// HomeReadOnly are home-relative names that stay read-only.
	HomeReadOnly []string
	// SeedFiles are ReadOnly files created (with this content) when
	// missing, so that the jail cannot create them; SeedDirs the same for
	// directories. Only when ConfigDir exists.
	SeedFiles map[string]string
	SeedDirs  []string
	// Global is the agent's global config file that it rewrites all the
	// time (Claude Code's .claude.json): the jail gets a per-run copy and
	// the supervisor merges back what cannot run code. It sits in the home
	// directory, or in the config dir when ConfigEnv moves it.
	Global string
}

var profiles = map[string]profile{
	"claude": {
		Keys:      []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"},
		ConfigEnv: "CLAUDE_CONFIG_DIR", ConfigDir: ".claude",
		Writable: []string{".cache/claude", ".cache/claude-cli-nodejs", ".config/claude",
			".local/share/claude", ".local/state/claude"},
		ReadOnly: []string{"settings.json", "settings.local.json", "managed-settings.json", "CLAUDE.md",
			"commands", "agents", "hooks", "plugins", "skills", "output-styles", "local", "backups",
			"keybindings.json", ".claude.json.backup"},
		HomeReadOnly: []string{".claude.json.backup", ".local/share/claude/versions"},
		SeedFiles:    map[string]string{"settings.json": "{}\n"},
		SeedDirs:     []string{"commands", "agents", "hooks", "plugins", "skills", "output-styles", "backups"},
		Global:       ".claude.json",
	},
	"codex": {
		Keys:      []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
		ConfigEnv: "CODEX_HOME", ConfigDir: ".codex",
		ReadOnly: []string{"config.toml", "managed_config.toml", "AGENTS.md", "AGENTS.override.md",
			"prompts", "rules", "skills", "hooks.json"},
		SeedFiles: map[string]string{"config.toml": ""},
		SeedDirs:  []string{"prompts", "rules"},
	},
	"gemini": {
		Keys:      []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
		ConfigDir: ".gemini",
		ReadOnly:  []string{"settings.json", "GEMINI.md", "commands", "extensions", "policies"},
		SeedFiles: map[string]string{"settings.json": "{}\n"},
		SeedDirs:  []string{"commands", "extensions"},
	},
	"cursor-agent": {
		Keys:      []string{"CURSOR_API_KEY"},
		ConfigDir: ".cursor",
		Writable:  []string{".config/cursor", ".local/share/cursor-agent"},
		ReadOnly: []string{"mcp.json", "cli-config.json", "hooks.json", "rules", "commands",
			"extensions"},
		HomeReadOnly: []string{".local/share/cursor-agent/versions"},
		SeedFiles:    map[string]string{"mcp.json": "{\"mcpServers\":{}}\n"},
		SeedDirs:     []string{"rules", "commands"},
	},
}

// agentProfile is the profile of agent (empty for an unknown one).
func agentProfile(agent string) profile { return profiles[strings.ToLower(agent)] }

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

// AgentKeys are the variables that carry agent's own credentials: the
// jail keeps them although they look like secrets.
func AgentKeys(agent string) []string { return agentProfile(agent).Keys }

// agentLayout is a profile resolved against a home directory and an
// environment: absolute paths.
type agentLayout struct {
	Writable []string
	ReadOnly []string
	Seeds    []seed
	Global   string // "" when the agent has none
}

type seed struct {
	path    string
	content string
	dir     bool
}

// layout resolves p for home and env (which may move the config dir).
func (p profile) layout(home string, env []string) agentLayout {
	var l agentLayout
	if p.ConfigDir == "" {
		return l
	}
	cfg, globalDir := filepath.Join(home, p.ConfigDir), home
	if p.ConfigEnv != "" {
		if d := envValue(env, p.ConfigEnv); filepath.IsAbs(d) {
			cfg, globalDir = filepath.Clean(d), filepath.Clean(d)
		}
	}
	l.Writable = append(l.Writable, cfg)
	for _, w := range p.Writable {
		l.Writable = append(l.Writable, filepath.Join(home, w))
	}
	for _, r := range p.ReadOnly {
		l.ReadOnly = append(l.ReadOnly, filepath.Join(cfg, r))
	}
	for _, r := range p.HomeReadOnly {
		l.ReadOnly = append(l.ReadOnly, filepath.Join(home, r))
	}
	for name, content := range p.SeedFiles {
		l.Seeds = append(l.Seeds, seed{path: filepath.Join(cfg, name), content: content})
	}
	for _, name := range p.SeedDirs {
		l.Seeds = append(l.Seeds, seed{path: filepath.Join(cfg, name), dir: true})
	}
	if p.Global != "" {
		l.Global = filepath.Join(globalDir, p.Global)
	}
	return l
}

// ProtectedPaths are the project-relative paths that stay read-only inside
// the writable project: the bus, code that runs outside the jail later
// (git hooks and config, the files that send git elsewhere for them:
// commondir, alternates, info/, and remotes/ and branches/, whose files
// define a remote where the config has none: `.git/remotes/origin` sent an
// approved `git push origin master` to the agent's own repository and ran
// its receive hooks, and worktrees/, whose X/commondir and
// X/config.worktree choose the config git runs with in the linked
// worktree X, where the broker and the human run git too; refs/replace/,
// whose refs make git read one object's content for another's (the
// human's next commit in MAIN would carry a tree the agent made up); CI
// configuration, which runs with the repository's secrets after a push;
// direnv, husky; editors' tasks, which run when a folder is opened: VS
// Code's runOn folderOpen, JetBrains' startup tasks) and the agents' own
// configuration (hooks, MCP servers, permissions). The default policy's
// write rules escalate the same names in connector mode. The jail pins
// each whether it exists or not (see jailspec.FS.ReadOnly).
var ProtectedPaths = []string{
	".sandbox", ".git/hooks", ".git/config", ".git/commondir", ".git/info",
	".git/objects/info/alternates", ".git/remotes", ".git/branches", ".git/worktrees", ".git/refs/replace",
	".github/workflows", ".github/actions", ".gitlab-ci.yml", ".circleci", ".envrc", ".husky",
	".claude", ".mcp.json", ".cursor", ".codex", ".gemini", ".windsurf", ".vscode", ".idea",
}

// protectedFiles are the protected paths that name files, with the
// content of the placeholder that stands in for a missing one during a
// run: what the tool reads as "nothing configured" (a commondir of "."
// is the repository itself; git refuses an empty one).
var protectedFiles = map[string]string{
	".git/commondir": ".\n", ".git/objects/info/alternates": "", ".envrc": "",
	".mcp.json": "{\"mcpServers\": {}}\n", ".gitlab-ci.yml": "",
}
