package cursor

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
)

func init() {
	adapter.Register(adapter.Agent{Name: Name, Wires: "wire Cursor hooks and MCP into .cursor/", Install: Integration{},
		Hook: &adapter.Hook{Run: Run, Refuse: Refuse}})
}

// Project files, relative to the project root.
var (
	HooksFile = filepath.Join(".cursor", "hooks.json")
	MCPFile   = filepath.Join(".cursor", "mcp.json")
)

// HooksVersion is the hooks.json format version sandbox writes.
const HooksVersion = 1

// entry is one hook of hooks.json. Timeout is in seconds; FailClosed
// makes Cursor block the action when the hook fails or times out.
type entry struct {
	Command    string `json:"command"`
	Timeout    int    `json:"timeout"`
	FailClosed bool   `json:"failClosed,omitempty"`
}

// Hooks are the hooks `sandbox init --cursor` adds for command cmd: the
// deciding ones may wait for a human, so their timeout is longer than
// the hook's longest wait, and they fail closed.
func Hooks(cmd string) []adapter.FlatHook {
	pre := entry{Command: cmd, Timeout: int(hook.InstalledTimeout.Seconds()), FailClosed: true}
	return []adapter.FlatHook{
		{Event: BeforeShellExecution, Entry: pre},
		{Event: BeforeMCPExecution, Entry: pre},
		{Event: BeforeReadFile, Entry: pre},
		{Event: AfterFileEdit, Entry: entry{Command: cmd, Timeout: 30}},
	}
}

// Integration wires Cursor: hooks in .cursor/hooks.json, the MCP server
// in .cursor/mcp.json.
type Integration struct{}

// Change is what Install recorded in each file.
type Change struct {
	Hooks *jsonedit.Change `json:"hooks"`
	MCP   install.Change   `json:"mcp,omitempty"`
}

// Install merges the hooks, then the MCP server entry; if the second
// fails, the first is taken out again.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	var old Change
	if len(prev) > 0 {
		if err := json.Unmarshal(prev, &old); err != nil {
			return nil, fmt.Errorf("cursor: recorded change: %w", err)
		}
	}
	cmd := adapter.Command(env.Exe, Name)
	hooks, hooksChanged, err := hooksEdit(cmd).Install(env.Folder.Root, old.Hooks)
	if err != nil {
		return nil, err
	}
	mcp, err := mcpserver.InstallFile(env.Folder.Root, MCPFile, mcpserver.NewEntry(env.Exe, env.Folder.Root), old.MCP)
	if err != nil {
		if hooksChanged {
			jsonedit.Uninstall(env.Folder.Root, hooks, ours(cmd))
		}
		return nil, err
	}
	if !hooksChanged && string(mcp) == string(old.MCP) {
		return prev, nil
	}
	return json.Marshal(Change{Hooks: hooks, MCP: mcp})
}

// Uninstall removes exactly what Install recorded.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	var ch Change
	if err := json.Unmarshal(c, &ch); err != nil {
		return fmt.Errorf("cursor: recorded change: %w", err)
	}
	if len(ch.MCP) > 0 {
		if err := mcpserver.UninstallFile(env.Folder.Root, ch.MCP); err != nil {
			return err
		}
	}
	if ch.Hooks == nil {
		return nil
	}
	return jsonedit.Uninstall(env.Folder.Root, ch.Hooks, ours(ch.Hooks.Command))
}

func hooksEdit(cmd string) jsonedit.Edit {
	return jsonedit.Edit{File: HooksFile, Command: cmd, Ours: ours,
		Add: func(d *jsonedit.Doc) ([]jsonedit.Site, error) {
			var sites []jsonedit.Site
			v, err := d.Lookup([]string{"version"})
			switch {
			case err != nil:
				return nil, err
			case v == nil:
				s, err := d.AddMember(nil, "version", HooksVersion)
				if err != nil {
					return nil, err
				}
				sites = append(sites, s)
			case v.Text() != fmt.Sprint(HooksVersion):
				return nil, fmt.Errorf("%s has \"version\": %s; sandbox writes version %d hooks: %w", d.File(), v.Text(), HooksVersion, jsonedit.ErrConflict)
			}
			// First in each array: Cursor has run only the first hook of
			// an event in some versions.
			more, err := adapter.AddFlatHooks(d, cmd, Hooks(cmd), jsonedit.First)
			return append(sites, more...), err
		},
	}
}

// ours recognises the entries added for cmd, and the "version" member
// sandbox added once no hook is left beside it.
func ours(cmd string) jsonedit.Matcher {
	flat := adapter.OursFlat(cmd)
	return func(s jsonedit.Site, n *jsonedit.Node) bool {
		if len(s.Path) == 0 && s.Member == "version" {
			h, _ := n.Root().Get("hooks")
			return h == nil || (h.Kind == jsonedit.Object && h.Len() == 0)
		}
		return flat(s, n)
	}
}
