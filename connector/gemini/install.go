package gemini

import (
	"path/filepath"
	"slices"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
)

func init() {
	adapter.Register(adapter.Agent{Name: Name, Wires: "wire Gemini CLI hooks and MCP into .gemini/settings.json", Install: Integration{},
		Hook:   &adapter.Hook{Run: Run, Refuse: Refuse, Jails: true},
		Launch: &adapter.Launch{Command: "gemini", Headless: []string{"--prompt"}, Interactive: []string{"--prompt-interactive"}, Joined: true}})
}

// SettingsFile is the project settings file, relative to the project root.
var SettingsFile = filepath.Join(".gemini", "settings.json")

// hookEntry is one command hook; Timeout is in milliseconds.
type hookEntry struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int64  `json:"timeout"`
}

// group is one matcher group of an event.
type group struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

// Groups are the groups `sandbox init --gemini` adds for command cmd:
// BeforeTool may wait for a human, so its timeout is longer than the
// hook's longest wait (a hook that times out lets the call through).
func Groups(cmd string) []struct {
	Event string
	Group group
} {
	pre := hook.InstalledTimeout.Milliseconds()
	h := func(ms int64) []hookEntry {
		return []hookEntry{{Name: "sandbox", Type: "command", Command: cmd, Timeout: ms}}
	}
	return []struct {
		Event string
		Group group
	}{
		{BeforeTool, group{Matcher: Matcher, Hooks: h(pre)}},
		{AfterTool, group{Matcher: Matcher, Hooks: h(30_000)}},
		{SessionStart, group{Hooks: h(30_000)}},
	}
}

// Integration wires Gemini CLI: hooks and the MCP server in
// .gemini/settings.json.
type Integration struct{}

// Install merges the hooks and the server entry into the settings file.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	cmd := adapter.Command(env.Exe, Name)
	server := mcpserver.NewEntry(env.Exe, env.Folder.Root)
	server.Timeout = mcpserver.ClientTimeout.Milliseconds()
	edit := jsonedit.Edit{File: SettingsFile, Command: cmd, Ours: ours,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) {
			sites, err := addGroups(d, cmd)
			if err != nil {
				return nil, err
			}
			more, err := mcpserver.AddServer(d, server)
			return append(sites, more...), err
		}}
	return edit.InstallRecorded(env.Folder.Root, "gemini", prev)
}

// Uninstall removes exactly what Install recorded; sandbox's hook leaves
// a group the user has since put hooks of their own into.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	ch, err := jsonedit.DecodeRecord("gemini", c)
	if err != nil {
		return err
	}
	return jsonedit.UninstallFunc(env.Folder.Root, ch, func(d *jsonedit.Doc) error {
		if err := unhookSharedGroups(d, ch.Command); err != nil {
			return err
		}
		return d.Undo(ch.Sites, ours(ch.Command))
	})
}

func addGroups(d *jsonedit.Doc, cmd string) ([]jsonedit.Site, error) {
	var sites []jsonedit.Site
	keep := func(s *jsonedit.Site, err error) error {
		if s != nil {
			sites = append(sites, *s)
		}
		return err
	}
	if err := keep(d.EnsureMember(nil, "hooks", jsonedit.Object)); err != nil {
		return nil, err
	}
	for _, g := range Groups(cmd) {
		if err := keep(d.EnsureMember([]string{"hooks"}, g.Event, jsonedit.Array)); err != nil {
			return nil, err
		}
		path := []string{"hooks", g.Event}
		arr, err := d.Lookup(path)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(arr.Elems, func(n *jsonedit.Node) bool { return hookIndex(n, cmd) >= 0 }) {
			continue
		}
		s, err := d.AddElement(path, g.Group, jsonedit.Last)
		if err := keep(&s, err); err != nil {
			return nil, err
		}
	}
	return sites, nil
}

// hookIndex is the index, in group n's hooks, of the hook that runs cmd,
// or -1.
func hookIndex(n *jsonedit.Node, cmd string) int {
	if n.Kind != jsonedit.Object {
		return -1
	}
	hooks, _ := n.Get("hooks")
	if hooks == nil || hooks.Kind != jsonedit.Array {
		return -1
	}
	return slices.IndexFunc(hooks.Elems, func(h *jsonedit.Node) bool { return adapter.RunsCommand(h, cmd) })
}

// ours recognises a group sandbox added for cmd (its only hook runs
// cmd), and the MCP server entry of the same sandbox binary.
func ours(cmd string) jsonedit.Matcher {
	return func(s jsonedit.Site, n *jsonedit.Node) bool {
		if s.Member == mcpserver.ServerName {
			var e mcpserver.Entry
			return n.Decode(&e) == nil && len(e.Args) > 0 && e.Args[0] == "mcp" && adapter.Command(e.Command, Name) == cmd
		}
		if s.Member != "" {
			return false
		}
		hooks, _ := n.Get("hooks")
		return hookIndex(n, cmd) >= 0 && hooks.Len() == 1
	}
}

// unhookSharedGroups takes sandbox's hook out of every group that also
// holds hooks of the user's.
func unhookSharedGroups(d *jsonedit.Doc, cmd string) error {
	for _, g := range Groups(cmd) {
		for {
			arr, err := d.Lookup([]string{"hooks", g.Event})
			if err != nil || arr == nil || arr.Kind != jsonedit.Array {
				return err
			}
			i := slices.IndexFunc(arr.Elems, func(n *jsonedit.Node) bool {
				hooks, _ := n.Get("hooks")
				return hookIndex(n, cmd) >= 0 && hooks.Len() > 1
			})
			if i < 0 {
				break
			}
			hooks, _ := arr.Elems[i].Get("hooks")
			if err := d.RemoveItem(hooks, hookIndex(arr.Elems[i], cmd)); err != nil {
				return err
			}
		}
	}
	return nil
}
