package policy

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ValidShimName reports whether name can be a run-mode shim: a plain
// command name of letters, digits, '.', '_', '+' and '-' (not starting
// with '.' or '-'), at most 64 bytes, and never the sandbox binary's own
// name.
func ValidShimName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' || name[0] == '-' || strings.HasPrefix(name, "sandbox") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._+-", c) >= 0) {
			return false
		}
	}
	return true
}

// shimNames decodes `shims: [NAME, ...]`, the tools run mode shims
// instead of the default list (an empty list shims nothing). Absent, it
// returns nil.
func (c *collector) shimNames(n *yaml.Node) []string {
	if n.Kind == 0 {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		c.add(n.Line, "shims: a list of command names, such as [git, npm, curl]")
		return nil
	}
	out := []string{}
	for _, item := range n.Content {
		switch {
		case item.Kind != yaml.ScalarNode || item.Tag != "!!str" || !ValidShimName(item.Value):
			c.add(item.Line, "shims: %q is not a command name (letters, digits, '.', '_', '+', '-'; not sandbox itself)", item.Value)
		case slices.Contains(out, item.Value):
			c.add(item.Line, "shims: %q is listed twice", item.Value)
		default:
			out = append(out, item.Value)
		}
	}
	return out
}
