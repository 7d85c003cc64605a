package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// lineEdit inserts lines before line at (1-based; len+1 appends) and
// removes the line drop (0: none).
type lineEdit struct {
	at   int
	add  []string
	drop int
}

// AddRules returns src with the writable suggestions applied, as text
// edits that keep the file's comments and layout: each pattern goes at the
// top of its trigger's allow list with a reason saying it was learned, and
// the escalate rule it replaces (exactly its pattern) is removed. The
// result is parsed and checked to differ from src by exactly those rules;
// anything else (a flow-style list, a rule over several lines) is
// refused with ErrNoRules, and the human adds the rules by hand.
func AddRules(file string, src []byte, sugg []Suggestion) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: %s is not a YAML mapping", ErrNoRules, file)
	}
	lines := strings.SplitAfter(string(src), "\n")
	if !strings.HasSuffix(string(src), "\n") && len(src) > 0 {
		lines[len(lines)-1] += "\n"
	} else if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var edits []lineEdit
	byTrigger := map[Trigger][]Suggestion{}
	var order []Trigger
	for _, s := range sugg {
		if !s.Writable() {
			continue
		}
		if byTrigger[s.Trigger] == nil {
			order = append(order, s.Trigger)
		}
		byTrigger[s.Trigger] = append(byTrigger[s.Trigger], s)
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%w: no suggestion can go into %s", ErrNoRules, file)
	}
	for _, t := range order {
		e, err := triggerEdits(root.Content[0], lines, t, byTrigger[t])
		if err != nil {
			return nil, err
		}
		edits = append(edits, e...)
	}
	out := applyEdits(lines, edits)
	if err := checkAdded(file, src, out, sugg); err != nil {
		return nil, err
	}
	return out, nil
}

// triggerEdits adds t's patterns to its allow list and drops the
// escalate rules they replace.
func triggerEdits(doc *yaml.Node, lines []string, t Trigger, sugg []Suggestion) ([]lineEdit, error) {
	var items []string
	var edits []lineEdit
	for _, s := range sugg {
		pat, _ := json.Marshal(s.Pattern)
		reason, _ := json.Marshal(learnedReason(s))
		items = append(items, fmt.Sprintf("- {pattern: %s, reason: %s}", pat, reason))
		if s.Replaces != "" {
			if s.Line < 1 || s.Line > len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[s.Line-1]), "-") {
				return nil, fmt.Errorf("%w: the escalate rule `%s` is not one line of the file", ErrNoRules, s.Replaces)
			}
			edits = append(edits, lineEdit{drop: s.Line})
		}
	}
	sec := mapValue(doc, string(t))
	switch {
	case sec == nil || sec.Kind == yaml.ScalarNode && sec.Tag == "!!null":
		// No section (or an empty one): a new one at the end of the file.
		block := []string{string(t) + ":", "  allow:"}
		for _, it := range items {
			block = append(block, "    "+it)
		}
		if sec != nil {
			return nil, fmt.Errorf("%w: the %s: section is empty; add the rules by hand", ErrNoRules, t)
		}
		return append(edits, lineEdit{at: len(lines) + 1, add: block}), nil
	case sec.Kind != yaml.MappingNode || sec.Style&yaml.FlowStyle != 0 || len(sec.Content) == 0:
		return nil, fmt.Errorf("%w: the %s: section is not a block mapping", ErrNoRules, t)
	}
	allow := mapValue(sec, "allow")
	if allow == nil {
		indent := lineIndent(lines[sec.Content[0].Line-1])
		block := []string{indent + "allow:"}
		for _, it := range items {
			block = append(block, indent+"  "+it)
		}
		return append(edits, lineEdit{at: sec.Content[0].Line, add: block}), nil
	}
	if allow.Kind != yaml.SequenceNode || allow.Style&yaml.FlowStyle != 0 || len(allow.Content) == 0 {
		return nil, fmt.Errorf("%w: %s.allow is not a block list", ErrNoRules, t)
	}
	first := allow.Content[0].Line
	indent := lineIndent(lines[first-1])
	var block []string
	for _, it := range items {
		block = append(block, indent+it)
	}
	return append(edits, lineEdit{at: first, add: block}), nil
}

// mapValue is the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func lineIndent(l string) string {
	return l[:len(l)-len(strings.TrimLeft(l, " \t"))]
}

// applyEdits applies the edits from the bottom up, so that each one's
// line numbers still hold.
func applyEdits(lines []string, edits []lineEdit) []byte {
	type op struct {
		line int
		add  []string
		drop bool
	}
	var ops []op
	for _, e := range edits {
		if e.drop > 0 {
			ops = append(ops, op{line: e.drop, drop: true})
		}
		if len(e.add) > 0 {
			ops = append(ops, op{line: e.at, add: e.add})
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].line > ops[j].line })
	out := slices.Clone(lines)
	for _, o := range ops {
		if o.drop {
			out = slices.Delete(out, o.line-1, o.line)
			continue
		}
		add := make([]string, len(o.add))
		for i, a := range o.add {
			add[i] = a + "\n"
		}
		out = slices.Insert(out, min(o.line-1, len(out)), add...)
	}
	return []byte(strings.Join(out, ""))
}

// checkAdded parses both versions and checks that they differ by exactly
// the suggestions: each pattern added to its allow list, each replaced
// escalate rule gone, nothing else.
func checkAdded(file string, before, after []byte, sugg []Suggestion) error {
	old, err := Parse(file, before)
	if err != nil {
		return err
	}
	nw, err := Parse(file, after)
	if err != nil {
		return fmt.Errorf("%w: the edited policy does not parse: %v", ErrNoRules, err)
	}
	want := map[Trigger][3][]string{}
	for t, rs := range old.Rules {
		want[t] = [3][]string{patterns(rs.Allow), patterns(rs.Escalate), patterns(rs.Deny)}
	}
	for _, s := range sugg {
		if !s.Writable() {
			continue
		}
		w := want[s.Trigger]
		w[0] = append(w[0], s.Pattern)
		if s.Replaces != "" {
			i := slices.Index(w[1], s.Replaces)
			if i < 0 {
				return fmt.Errorf("%w: no escalate rule `%s` to replace", ErrNoRules, s.Replaces)
			}
			w[1] = slices.Delete(w[1], i, i+1)
		}
		want[s.Trigger] = w
	}
	for _, t := range []Trigger{Shell, Write, Read, Network, MCP} {
		var got [3][]string
		if rs := nw.Rules[t]; rs != nil {
			got = [3][]string{patterns(rs.Allow), patterns(rs.Escalate), patterns(rs.Deny)}
		}
		w := want[t]
		for i := range got {
			if !sameSet(got[i], w[i]) {
				return fmt.Errorf("%w: editing %s would change more than the suggested rules (%s)", ErrNoRules, file, t)
			}
		}
	}
	return nil
}

func patterns(rs []*Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Pattern
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
