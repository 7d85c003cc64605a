package team

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Covers reports whether a's scope holds t: in each dimension the scope
// names (kind, command, host, project) one entry matches. A command
// scope holds a shell request only when every command its script would
// run, and nothing else it would do (a redirection writes a file), is
// allowed by the command patterns alone, the built-in self-protection
// applying as always; it never holds a request of another kind.
func Covers(a policy.Approver, t Target, root string) bool {
	dims := map[string][]string{}
	for _, s := range a.Scope {
		dim, val, _ := strings.Cut(s, ":")
		dims[dim] = append(dims[dim], val)
	}
	if ks, ok := dims["kind"]; ok && !slices.Contains(ks, string(t.Req.Kind)) {
		return false
	}
	if hs, ok := dims["host"]; ok && !anyGlob(hs, t.Host) {
		return false
	}
	if ps, ok := dims["project"]; ok && !anyGlob(ps, t.Project) {
		return false
	}
	if cs, ok := dims["command"]; ok {
		return commandsCovered(cs, t.Req, root)
	}
	return true
}

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if ok, err := path.Match(g, s); err == nil && ok {
			return true
		}
	}
	return false
}

// commandsCovered decides the request's shell payload with an engine whose
// only rules are the command patterns, as shell allow rules.
func commandsCovered(patterns []string, r *queue.Request, root string) bool {
	if r.Kind != queue.KindShell || r.Shell == nil {
		return false
	}
	// a policy document in JSON (which YAML reads): the patterns checked
	// as every policy's are
	doc, err := json.Marshal(map[string]any{"version": 1, "shell": map[string]any{"allow": patterns}})
	if err != nil {
		return false
	}
	pol, err := policy.Parse("approver scope", doc)
	if err != nil {
		return false
	}
	e, err := policy.New(root, pol, policy.Options{})
	if err != nil {
		return false
	}
	var d policy.Decision
	if r.Shell.Argv != nil {
		d = e.Argv(r.Shell.Argv, r.Cwd)
	} else {
		d = e.Shell(r.Shell.Script, r.Cwd)
	}
	return d.Decision == policy.Allow
}
