package claude

import (
	"slices"

	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"

	"github.com/sandbox-dev/sandbox/connector/jsonedit"
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

// EventGroup is a group sandbox adds under one event (a group, or an
// httpGroup for init --claude-http).
type EventGroup struct {
	Event string
	Group any
}

// Groups are the groups `sandbox init --claude` adds for command cmd:
// PreToolUse fails closed on a timeout or crash (onFailure "block") and
// may wait for a human, so its timeout is longer than the hook's wait.
func Groups(cmd string) []EventGroup {
	pre := int(hookTimeout().Seconds())
	return []EventGroup{
		{toolhook.PreToolUse, group{Matcher: Matcher, Hooks: []hookEntry{{Type: "command", Command: cmd, Timeout: pre, OnFailure: "block"}}}},
		{toolhook.PostToolUse, group{Matcher: Matcher, Hooks: []hookEntry{{Type: "command", Command: cmd, Timeout: 30}}}},
		{toolhook.SessionStart, group{Hooks: []hookEntry{{Type: "command", Command: cmd, Timeout: 30}}}},
	}
}

// addGroups merges gs into a settings document ({"hooks": {EVENT:
// [GROUP...]}}), adding only the groups whose event has none that
// present recognises.
func addGroups(d *jsonedit.Doc, gs []EventGroup, present func(*jsonedit.Node) bool) ([]jsonedit.Site, error) {
	var sites []jsonedit.Site
	keep := func(s *jsonedit.Site, err error) error {
		if s != nil {
			sites = append(sites, *s)
		}
		return err
	}
	for _, g := range gs {
		if err := keep(d.EnsureMember(nil, "hooks", jsonedit.Object)); err != nil {
			return nil, err
		}
		if err := keep(d.EnsureMember([]string{"hooks"}, g.Event, jsonedit.Array)); err != nil {
			return nil, err
		}
		path := []string{"hooks", g.Event}
		arr, err := d.Lookup(path)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(arr.Elems, present) {
			continue
		}
		s, err := d.AddElement(path, g.Group, jsonedit.Last)
		if err := keep(&s, err); err != nil {
			return nil, err
		}
	}
	return sites, nil
}

// ours recognises a group that sandbox added for cmd: its hooks are
// exactly one command hook running cmd. A group the user has since put
// hooks of their own into is left alone.
func ours(cmd string) jsonedit.Matcher {
	return func(_ jsonedit.Site, n *jsonedit.Node) bool {
		if n.Kind != jsonedit.Object {
			return false
		}
		hooks, _ := n.Get("hooks")
		return hooks != nil && hooks.Kind == jsonedit.Array && len(hooks.Elems) == 1 && isCommand(hooks.Elems[0], cmd)
	}
}

// runs reports whether group n has a hook that runs cmd.
func runs(d *jsonedit.Doc, n *jsonedit.Node, cmd string) bool {
	if n.Kind != jsonedit.Object {
		return false
	}
	hooks, _ := n.Get("hooks")
	return hooks != nil && hooks.Kind == jsonedit.Array && slices.ContainsFunc(hooks.Elems, func(h *jsonedit.Node) bool {
		return isCommand(h, cmd)
	})
}

func isCommand(h *jsonedit.Node, cmd string) bool {
	if h.Kind != jsonedit.Object {
		return false
	}
	c, _ := h.Get("command")
	return c != nil && c.Kind == jsonedit.String && c.Str == cmd
}
