package adapter

import (
	"slices"

	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

// FlatHook is one event of a {"hooks": {EVENT: [ENTRY, ...]}} file (the
// shape of Cursor's and Windsurf's hooks.json) and the entry sandbox
// puts in its array.
type FlatHook struct {
	Event string
	Entry any
}

// AddFlatHooks merges hooks into d, leaving alone every array that
// already holds an entry that runs cmd, and returns the sites it added.
func AddFlatHooks(d *jsonedit.Doc, cmd string, hooks []FlatHook, where jsonedit.Where) ([]jsonedit.Site, error) {
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
	for _, h := range hooks {
		if err := keep(d.EnsureMember([]string{"hooks"}, h.Event, jsonedit.Array)); err != nil {
			return nil, err
		}
		path := []string{"hooks", h.Event}
		arr, err := d.Lookup(path)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(arr.Elems, func(n *jsonedit.Node) bool { return RunsCommand(n, cmd) }) {
			continue
		}
		s, err := d.AddElement(path, h.Entry, where)
		if err := keep(&s, err); err != nil {
			return nil, err
		}
	}
	return sites, nil
}

// RunsCommand reports whether n is an object whose "command" is cmd.
func RunsCommand(n *jsonedit.Node, cmd string) bool {
	if n.Kind != jsonedit.Object {
		return false
	}
	c, _ := n.Get("command")
	return c != nil && c.Kind == jsonedit.String && c.Str == cmd
}

// OursFlat recognises the entries AddFlatHooks added for cmd.
func OursFlat(cmd string) jsonedit.Matcher {
	return func(s jsonedit.Site, n *jsonedit.Node) bool { return s.Member == "" && RunsCommand(n, cmd) }
}
