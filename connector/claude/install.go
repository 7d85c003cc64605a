package claude

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

func init() { install.Register(Integration{}) }

// SettingsFile is the project settings file, relative to the project root.
var SettingsFile = filepath.Join(".claude", "settings.json")

// hookTimeout is the PreToolUse timeout installed: longer than any wait.
func hookTimeout() time.Duration { return hook.InstalledTimeout }

// Integration installs sandbox's hooks into .claude/settings.json.
type Integration struct{}

// Name is the init flag.
func (Integration) Name() string { return "claude" }

// Command is the hook command line for the sandbox binary at exe. For
// install.PortableExe it is the binary found on the agent's PATH, guarded
// so that a machine without it refuses every call with a message saying
// so (exit 2, the agents' "refuse") instead of letting the call through
// unchecked, which is what the shell's own "not found" (127) would do.
func Command(exe, agent string) string {
	if exe == install.PortableExe && runtime.GOOS != "windows" {
		return "command -v sandbox >/dev/null 2>&1 || { echo " + ShellQuote(missingBinary) +
			" >&2; exit 2; }; exec sandbox hook " + agent
	}
	return ShellQuote(exe) + " hook " + agent
}

// missingBinary is what the agent and its user read on every tool call of
// a machine where the committed hooks cannot find sandbox.
const missingBinary = "sandbox: this project checks every tool call with sandbox, " +
	"which is not installed or not on PATH here, so the call is refused (nothing runs unchecked). " +
	"Install sandbox, put it on PATH, run `sandbox doctor` in the project, then restart the agent."

// Install merges the hooks into the settings file.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	var old *jsonedit.Change
	if len(prev) > 0 {
		var err error
		if old, err = jsonedit.DecodeRecord("claude", prev); err != nil {
			return nil, err
		}
	}
	cmd := Command(env.Exe, "claude")
	e := jsonedit.Edit{File: SettingsFile, Command: cmd, Ours: ours,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) { return addGroups(d, cmd) }}
	ch, changed, err := e.Install(env.Folder.Root, old)
	if err != nil {
		return nil, err
	}
	if !changed && len(prev) > 0 {
		return prev, nil
	}
	return json.Marshal(ch)
}

// Uninstall removes exactly what Install recorded.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	ch, err := jsonedit.DecodeRecord("claude", c)
	if err != nil {
		return err
	}
	return jsonedit.Uninstall(env.Folder.Root, ch, ours(ch.Command))
}

// ShellQuote quotes s for a POSIX shell when it needs quoting.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+:@%=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
