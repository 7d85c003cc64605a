package claude

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

// SettingsFile is the project settings file, relative to the project root.
var SettingsFile = filepath.Join(".claude", "settings.json")

// hookTimeout is the PreToolUse timeout installed: longer than any wait.
func hookTimeout() time.Duration { return hook.InstalledTimeout }

// Integration installs sandbox's hooks into .claude/settings.json.
type Integration struct{}

// Install merges the hooks into the settings file.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	var old *jsonedit.Change
	if len(prev) > 0 {
		var err error
		if old, err = jsonedit.DecodeRecord("claude", prev); err != nil {
			return nil, err
		}
	}
	cmd := adapter.Command(env.Exe, Name)
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
