package claude

import (
	"fmt"
	"slices"
)

// hookEntry is one command hook as Claude Code's settings describe it;
// Timeout is in seconds.
type hookEntry struct {
	Type      string `json:"type"`
	Command   string `json:"command"`
	Timeout   int    `json:"timeout"`
	OnFailure string `json:"onFailure,omitempty"`
}

// group is one matcher group of an event.
type group struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

// EventGroup is a group sandbox adds under one event.
type EventGroup struct {
	Event string
	Group group
}

// Groups are the groups `sandbox init --claude` adds for command cmd:
// PreToolUse fails closed on a timeout or crash (onFailure "block") and
// may wait for a human, so its timeout is longer than the hook's wait.
func Groups(cmd string) []EventGroup {
	pre := int(hookTimeout().Seconds())
	return []EventGroup{
		{PreToolUse, group{Matcher: Matcher, Hooks: []hookEntry{{Type: "command", Command: cmd, Timeout: pre, OnFailure: "block"}}}},
		{PostToolUse, group{Matcher: Matcher, Hooks: []hookEntry{{Type: "command", Command: cmd, Timeout: 30}}}},
		{SessionStart, group{Hooks: []hookEntry{{Type: "command", Command: cmd, Timeout: 30}}}},
	}
}

// site is one insertion made into a JSON file: a member named Member, or
// (Member empty) an element, added to the container at Path. EmptyWS is
// the inside of that container when it was empty.
type site struct {
	Path    []string `json:"path"`
	Member  string   `json:"member,omitempty"`
	EmptyWS *string  `json:"empty_ws,omitempty"`
}

// hooksEdit merges hook groups into a settings-shaped JSON document
// ({"hooks": {EVENT: [GROUP...]}}) and takes them out again.
type hooksEdit struct {
	d       *doc
	command string
	sites   []site
}

// lookup walks path from the root; every step must be an object member
// that occurs once. It returns nil when a member is missing.
func (e *hooksEdit) lookup(path []string) (*node, error) {
	n, err := e.d.reparse()
	if err != nil {
		return nil, err
	}
	if n.kind != '{' {
		return nil, malformed(e.d.file, e.d.src, n.start, "the top level is not an object")
	}
	for i, key := range path {
		m, dup := n.get(key)
		if dup {
			return nil, malformed(e.d.file, e.d.src, m.keyStart, fmt.Sprintf("duplicate key %q", key))
		}
		if m == nil {
			return nil, nil
		}
		want := byte('{')
		if i == len(path)-1 && len(path) == 2 {
			want = '['
		}
		if m.val.kind != want {
			return nil, malformed(e.d.file, e.d.src, m.val.start, fmt.Sprintf("%q is not an %s", key, kindName(want)))
		}
		n = m.val
	}
	return n, nil
}

func kindName(k byte) string {
	if k == '[' {
		return "array"
	}
	return "object"
}

// ensureMember makes sure the object at path has member key, adding an
// empty container when it is missing.
func (e *hooksEdit) ensureMember(path []string, key string, empty any) error {
	n, err := e.lookup(append(slices.Clone(path), key))
	if err != nil || n != nil {
		return err
	}
	parent, err := e.lookup(path)
	if err != nil {
		return err
	}
	ws := e.d.insert(parent, key, empty)
	e.sites = append(e.sites, site{Path: slices.Clone(path), Member: key, EmptyWS: ws})
	return nil
}

// add merges groups, adding only what is missing.
func (e *hooksEdit) add(groups []EventGroup) error {
	for _, g := range groups {
		if err := e.ensureMember(nil, "hooks", map[string]any{}); err != nil {
			return err
		}
		if err := e.ensureMember([]string{"hooks"}, g.Event, []any{}); err != nil {
			return err
		}
		path := []string{"hooks", g.Event}
		arr, err := e.lookup(path)
		if err != nil {
			return err
		}
		if e.findOurs(arr) >= 0 {
			continue
		}
		ws := e.d.insert(arr, "", g.Group)
		e.sites = append(e.sites, site{Path: path, EmptyWS: ws})
	}
	return nil
}

// findOurs returns the index of the first group in arr holding a hook
// that runs e.command, or -1.
func (e *hooksEdit) findOurs(arr *node) int {
	for i, el := range arr.elems {
		if e.entryIndex(el) >= 0 {
			return i
		}
	}
	return -1
}

// entryIndex returns the index, in group g's hooks array, of the hook
// that runs e.command, or -1.
func (e *hooksEdit) entryIndex(g *node) int {
	if g.kind != '{' {
		return -1
	}
	hooks, _ := g.get("hooks")
	if hooks == nil || hooks.val.kind != '[' {
		return -1
	}
	for i, h := range hooks.val.elems {
		if h.kind != '{' {
			continue
		}
		if c, _ := h.get("command"); c != nil && c.val.kind == '"' && c.val.str == e.command {
			return i
		}
	}
	return -1
}

// undo reverts sites, newest first. A member is removed only when its
// value is empty again, so whatever the user added since stays.
func (e *hooksEdit) undo(sites []site) error {
	for i := len(sites) - 1; i >= 0; i-- {
		var err error
		if sites[i].Member == "" {
			err = e.undoElement(sites[i])
		} else {
			err = e.undoMember(sites[i])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *hooksEdit) undoElement(s site) error {
	arr, err := e.lookup(s.Path)
	if err != nil || arr == nil {
		return err
	}
	i := e.findOurs(arr)
	if i < 0 {
		return nil
	}
	g := arr.elems[i]
	hooks, _ := g.get("hooks")
	if len(hooks.val.elems) > 1 { // the user put hooks of their own in our group
		e.d.remove(hooks.val, e.entryIndex(g), nil)
		return nil
	}
	e.d.remove(arr, i, s.EmptyWS)
	return nil
}

func (e *hooksEdit) undoMember(s site) error {
	parent, err := e.lookup(s.Path)
	if err != nil || parent == nil {
		return err
	}
	for i, m := range parent.members {
		if m.key == s.Member && (m.val.kind == '{' || m.val.kind == '[') && len(m.val.items()) == 0 {
			e.d.remove(parent, i, s.EmptyWS)
			return nil
		}
	}
	return nil
}
