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
	cmd := adapter.Command(env.Exe, Name)
	return installSettings(env, Name, prev, jsonedit.Edit{File: SettingsFile, Command: cmd, Ours: ours,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) {
			return addGroups(d, Groups(cmd), func(n *jsonedit.Node) bool { return runs(d, n, cmd) })
		}})
}

// Uninstall removes exactly what Install recorded.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	return uninstallSettings(env, Name, c, ours)
}

// installSettings merges e into the settings file, recorded under name
// (prev is what the last install recorded); unchanged, it returns prev.
func installSettings(env install.Env, name string, prev install.Change, e jsonedit.Edit) (install.Change, error) {
	var old *jsonedit.Change
	if len(prev) > 0 {
		var err error
		if old, err = jsonedit.DecodeRecord(name, prev); err != nil {
			return nil, err
		}
	}
	ch, changed, err := e.Install(env.Folder.Root, old)
	if err != nil {
		return nil, err
	}
	if !changed && len(prev) > 0 {
		return prev, nil
	}
	return json.Marshal(ch)
}

// uninstallSettings removes exactly what the record c of name holds.
func uninstallSettings(env install.Env, name string, c install.Change, ours func(cmd string) jsonedit.Matcher) error {
	ch, err := jsonedit.DecodeRecord(name, c)
	if err != nil {
		return err
	}
	return jsonedit.Uninstall(env.Folder.Root, ch, ours(ch.Command))
}
