package mcpserver

import (
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

func init() {
	adapter.Register(adapter.Agent{Name: "mcp", Wires: "register the sandbox MCP server in .mcp.json", Install: Integration{}})
}

// ServerName is the name sandbox's MCP server is registered under, so
// its tools are mcp__sandbox__run_privileged and so on.
const ServerName = "sandbox"

// ProjectFile is the project-scoped MCP configuration Claude Code reads.
const ProjectFile = ".mcp.json"

// Entry is a stdio MCP server entry as clients' JSON configs hold it.
// Timeout is Gemini CLI's per-request timeout in milliseconds.
type Entry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Timeout int64    `json:"timeout,omitempty"`
}

// NewEntry is the entry that starts `sandbox mcp ROOT` with the sandbox
// binary at exe (absolute).
func NewEntry(exe, root string) Entry {
	if exe == install.PortableExe {
		return Entry{Command: exe, Args: []string{"mcp"}}
	}
	return Entry{Command: exe, Args: []string{"mcp", root}}
}

// Identity is the command line an entry runs, which recognises it in a
// config file later.
func (e Entry) Identity() string {
	return display.QuoteArg(e.Command) + " " + strings.Join(quoteAll(e.Args), " ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = display.QuoteArg(s)
	}
	return out
}

// AddServer registers e as mcpServers.sandbox in d unless it is there. A
// server of that name that is not sandbox's is ErrConflict.
func AddServer(d *jsonedit.Doc, e Entry) ([]jsonedit.Site, error) {
	var sites []jsonedit.Site
	s, err := d.EnsureMember(nil, "mcpServers", jsonedit.Object)
	if err != nil {
		return nil, err
	}
	if s != nil {
		sites = append(sites, *s)
	}
	cur, err := d.Lookup([]string{"mcpServers", ServerName})
	if err != nil {
		return nil, err
	}
	if cur != nil {
		if entryIdentity(cur) == e.Identity() {
			return sites, nil
		}
		return nil, fmt.Errorf("%s already registers an MCP server named %q that is not this sandbox's (%s): rename or remove it: %w",
			d.File(), ServerName, cur.Text(), jsonedit.ErrConflict)
	}
	site, err := d.AddMember([]string{"mcpServers"}, ServerName, e)
	if err != nil {
		return nil, err
	}
	return append(sites, site), nil
}

// OursServer recognises the server entry that runs identity.
func OursServer(identity string) jsonedit.Matcher {
	return func(s jsonedit.Site, n *jsonedit.Node) bool {
		return s.Member == ServerName && entryIdentity(n) == identity
	}
}

// entryIdentity is the command line of an entry node ("" if it is not
// one).
func entryIdentity(n *jsonedit.Node) string {
	var e Entry
	if n.Kind != jsonedit.Object || n.Decode(&e) != nil || e.Command == "" {
		return ""
	}
	return e.Identity()
}

// Integration registers the MCP server in the project's .mcp.json
// (`sandbox init --mcp`).
type Integration struct{}

// Install merges the server entry into .mcp.json.
func (Integration) Install(env install.Env, prev install.Change) (install.Change, error) {
	e := NewEntry(env.Exe, env.Folder.Root)
	e.Type = "stdio"
	return InstallFile(env.Folder.Root, ProjectFile, e, prev)
}

// Uninstall removes exactly what Install recorded.
func (Integration) Uninstall(env install.Env, c install.Change) error {
	return UninstallFile(env.Folder.Root, c)
}

// InstallFile registers e in the JSON file rel (under root) and returns
// the change to record; prev is the change recorded before, if any.
func InstallFile(root, rel string, e Entry, prev install.Change) (install.Change, error) {
	edit := jsonedit.Edit{File: rel, Command: e.Identity(),
		Add:  func(d *jsonedit.Doc) ([]jsonedit.Site, error) { return AddServer(d, e) },
		Ours: OursServer,
	}
	return edit.InstallRecorded(root, "mcp", prev)
}

// UninstallFile removes the server entry recorded in c.
func UninstallFile(root string, c install.Change) error {
	ch, err := jsonedit.DecodeRecord("mcp", c)
	if err != nil {
		return err
	}
	return jsonedit.Uninstall(root, ch, OursServer(ch.Command))
}
