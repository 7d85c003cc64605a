package windsurf

import (
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

func init() {
	adapter.Register(adapter.Agent{Name: Name, Wires: "wire Windsurf hooks into .windsurf/hooks.json", Install: Integration{},
		Hook: &adapter.Hook{Run: Run, Refuse: Refuse}})
}

// HooksFile is the project's Cascade hooks file, relative to the root.
var HooksFile = filepath.Join(".windsurf", "hooks.json")

// entry is one hook; ShowOutput shows its output in Cascade.
type entry struct {
	Command    string `json:"command"`
	ShowOutput bool   `json:"show_output"`
}

// Hooks are the hooks `sandbox init --windsurf` adds for command cmd.
func Hooks(cmd string) []adapter.FlatHook {
	e := entry{Command: cmd, ShowOutput: true}
	var hooks []adapter.FlatHook
	for _, ev := range []string{PreRunCommand, PreWriteCode, PreReadCode, PreMCPToolUse} {
		hooks = append(hooks, adapter.FlatHook{Event: ev, Entry: e})
	}
	return hooks
}

// Integration wires Cascade's hooks into .windsurf/hooks.json.
type Integration struct{}

// Install merges the hooks into the hooks file.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	cmd := adapter.Command(env.Exe, Name)
	edit := jsonedit.Edit{File: HooksFile, Command: cmd, Ours: adapter.OursFlat,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) {
			return adapter.AddFlatHooks(d, cmd, Hooks(cmd), jsonedit.First)
		}}
	return edit.InstallRecorded(env.Folder.Root, "windsurf", prev)
}

// Uninstall removes exactly what Install recorded.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	ch, err := jsonedit.DecodeRecord("windsurf", c)
	if err != nil {
		return err
	}
	return jsonedit.Uninstall(env.Folder.Root, ch, adapter.OursFlat(ch.Command))
}
