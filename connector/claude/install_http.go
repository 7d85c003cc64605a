package claude

import (
	"os"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/hookd"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

// HTTPName is the init flag of Claude Code's hooks served by the
// project's hook server (`sandbox init --claude-http`).
const HTTPName = "claude-http"

func init() {
	adapter.Register(adapter.Agent{Name: HTTPName,
		Wires:   "wire Claude Code hooks into .claude/settings.json, answered by the project's hook server (`sandbox hookd`): no process per tool call",
		Install: HTTPIntegration{}, Hook: Claude.Hook()})
}

// HTTPIntegration installs Claude Code's hooks of type "http": PreToolUse
// and PostToolUse are posted to the project's hook server, which answers
// as `sandbox hook claude` would and runs the allowed commands it
// rewrites in the project jail without a process start per call; the
// SessionStart hook (`sandbox hookd --ensure`) starts that server when it
// does not answer. PreToolUse fails closed (onFailure "block"): with the
// server down, no tool call runs.
type HTTPIntegration struct {
	// Port overrides the project's port (tests); nil: hookd.Port.
	Port func(root string) int
}

func (i HTTPIntegration) url(root string) string {
	if i.Port == nil {
		return HookURL(root)
	}
	return "http://127.0.0.1:" + strconv.Itoa(i.Port(root)) + "/hook/" + Name
}

// httpHookEntry is one hook of type "http".
type httpHookEntry struct {
	Type      string `json:"type"`
	URL       string `json:"url"`
	Timeout   int    `json:"timeout"`
	OnFailure string `json:"onFailure,omitempty"`
}

type httpGroup struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []any  `json:"hooks"`
}

// HookURL is where Claude Code posts its events for the project at root.
func HookURL(root string) string {
	return "http://127.0.0.1:" + strconv.Itoa(hookd.Port(root, os.Getuid())) + "/hook/" + Name
}

// ensureCommand is the SessionStart hook's command.
func ensureCommand(exe string) string {
	if exe == install.PortableExe {
		return "sandbox hookd --ensure"
	}
	return display.QuoteArg(exe) + " hookd --ensure"
}

// Install merges the hooks into the settings file.
func (i HTTPIntegration) Install(env install.Env, prev install.Change) (install.Change, error) {
	cmd, url := ensureCommand(env.Exe), i.url(env.Folder.Root)
	pre := int(hookTimeout().Seconds())
	groups := []EventGroup{
		{toolhook.PreToolUse, httpGroup{Matcher: Matcher, Hooks: []any{httpHookEntry{Type: "http", URL: url, Timeout: pre, OnFailure: "block"}}}},
		{toolhook.PostToolUse, httpGroup{Matcher: Matcher, Hooks: []any{httpHookEntry{Type: "http", URL: url, Timeout: 30}}}},
		{toolhook.SessionStart, httpGroup{Hooks: []any{hookEntry{Type: "command", Command: cmd, Timeout: 30}}}},
	}
	return installSettings(env, HTTPName, prev, jsonedit.Edit{File: SettingsFile, Command: cmd, Ours: oursHTTP,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) {
			return addGroups(d, groups, func(n *jsonedit.Node) bool { return oursHTTP(cmd)(jsonedit.Site{}, n) })
		}})
}

// Uninstall removes exactly what Install recorded.
func (HTTPIntegration) Uninstall(env install.Env, c install.Change) error {
	return uninstallSettings(env, HTTPName, c, oursHTTP)
}

// oursHTTP recognises a group that sandbox added: its hooks are exactly
// one, the SessionStart command cmd or an http hook posting to a hook
// server's loopback URL for Claude Code (whatever the port: the project
// may have moved since).
func oursHTTP(cmd string) jsonedit.Matcher {
	return func(_ jsonedit.Site, n *jsonedit.Node) bool {
		if n.Kind != jsonedit.Object {
			return false
		}
		hooks, _ := n.Get("hooks")
		if hooks == nil || hooks.Kind != jsonedit.Array || len(hooks.Elems) != 1 {
			return false
		}
		h := hooks.Elems[0]
		if isCommand(h, cmd) {
			return true
		}
		if h.Kind != jsonedit.Object {
			return false
		}
		u, _ := h.Get("url")
		return u != nil && u.Kind == jsonedit.String && strings.HasPrefix(u.Str, "http://127.0.0.1:") &&
			strings.HasSuffix(u.Str, "/hook/"+Name)
	}
}
