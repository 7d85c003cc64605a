package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// AddApprover returns src with a listed as a trusted approver, as a text
// edit that keeps the file's comments and layout: appended to the
// approvers: list (a block list), or as a new approvers: section at the
// end. The result is parsed and checked to differ from src by exactly
// that entry; a key or name listed already, or a file this cannot edit
// safely (a flow-style list), is an error.
func AddApprover(file string, src []byte, a Approver) ([]byte, error) {
	if !ValidApproverName(a.Name) {
		return nil, fmt.Errorf("approver name %q: letters, digits and ._@+- only, at most 64", a.Name)
	}
	if _, err := ApproverKey(a.Key); err != nil {
		return nil, err
	}
	for _, s := range a.Scope {
		if err := CheckScope(s); err != nil {
			return nil, err
		}
	}
	before, err := Parse(file, src)
	if err != nil {
		return nil, err
	}
	for _, o := range before.Approvers {
		if o.Key == a.Key || o.Name == a.Name {
			return nil, fmt.Errorf("%s lists %s already (key %s): edit it there", file, o.Name, o.Key)
		}
	}
	entry := "  - name: " + a.Name + "\n    key: " + strconv.Quote(a.Key) + "\n"
	if len(a.Scope) > 0 {
		entry += "    scope:\n"
		for _, s := range a.Scope {
			entry += "      - " + strconv.Quote(s) + "\n"
		}
	}
	text := string(src)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a YAML mapping", file)
	}
	m := root.Content[0]
	var list *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "approvers" {
			list = m.Content[i+1]
		}
	}
	switch {
	case list == nil:
		text += "\n# team mode: the keys trusted to decide this folder's requests from another machine\napprovers:\n" + entry
	case list.Kind == yaml.SequenceNode && list.Style&yaml.FlowStyle == 0 && len(list.Content) > 0:
		// after the list's last line: the line before the next top-level key
		lines := strings.SplitAfter(text, "\n")
		at := len(lines)
		for i := list.Content[len(list.Content)-1].Line; i < len(lines); i++ {
			if l := lines[i]; l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '#' && l[0] != '\n' {
				at = i
				break
			}
		}
		for at > 0 && strings.TrimSpace(lines[at-1]) == "" || at > 0 && strings.HasPrefix(lines[at-1], "#") {
			at--
		}
		lines = slices.Insert(lines, at, entry)
		text = strings.Join(lines, "")
	default:
		return nil, fmt.Errorf("%s: approvers: is not a block list this can add to: add the key there by hand", file)
	}
	after, err := Parse(file, []byte(text))
	if err != nil {
		return nil, fmt.Errorf("bug: the edited policy does not parse: %w", err)
	}
	if len(after.Approvers) != len(before.Approvers)+1 || !slices.EqualFunc(after.Approvers[:len(before.Approvers)], before.Approvers, sameApprover) ||
		!sameApprover(after.Approvers[len(before.Approvers)], a) {
		return nil, fmt.Errorf("%s: the edit would change more than the new approver: add the key there by hand", file)
	}
	return []byte(text), nil
}

func sameApprover(x, y Approver) bool {
	return x.Name == y.Name && x.Key == y.Key && slices.Equal(x.Scope, y.Scope)
}
