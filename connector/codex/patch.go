package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// fileOp is one file section of an apply_patch patch.
type fileOp struct {
	verb   string // "Add", "Update", "Delete"
	path   string
	moveTo string
	lines  []string // the section's body lines, prefixes kept
}

// parsePatch reads the "*** Begin Patch" format. It is strict: anything it
// does not understand is an error, and the hook then refuses the call.
func parsePatch(text string) ([]fileOp, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" || strings.TrimSpace(lines[len(lines)-1]) != "*** End Patch" {
		return nil, fmt.Errorf("apply_patch: not a *** Begin Patch ... *** End Patch patch: %w", adapter.ErrBadInput)
	}
	var ops []fileOp
	for _, l := range lines[1 : len(lines)-1] {
		if verb, path, ok := fileHeader(l); ok {
			ops = append(ops, fileOp{verb: verb, path: path})
			continue
		}
		if len(ops) == 0 {
			return nil, fmt.Errorf("apply_patch: %q before any file header: %w", l, adapter.ErrBadInput)
		}
		cur := &ops[len(ops)-1]
		if to, ok := strings.CutPrefix(l, "*** Move to: "); ok && cur.verb == "Update" {
			cur.moveTo = strings.TrimSpace(to)
			continue
		}
		cur.lines = append(cur.lines, l)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("apply_patch: no file in the patch: %w", adapter.ErrBadInput)
	}
	return ops, nil
}

func fileHeader(l string) (verb, path string, ok bool) {
	for _, v := range []string{"Add", "Update", "Delete"} {
		if p, found := strings.CutPrefix(l, "*** "+v+" File: "); found && strings.TrimSpace(p) != "" {
			return v, strings.TrimSpace(p), true
		}
	}
	return "", "", false
}

func mapPatch(raw json.RawMessage, call *hook.Call) error {
	var in struct {
		Command *string `json:"command"`
		Input   *string `json:"input"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return fmt.Errorf("apply_patch tool_input: %v: %w", err, adapter.ErrBadInput)
	}
	text := in.Command
	if text == nil {
		text = in.Input
	}
	if text == nil {
		return fmt.Errorf("apply_patch tool_input has no patch: %w", adapter.ErrBadInput)
	}
	ops, err := parsePatch(*text)
	if err != nil {
		return err
	}
	call.Action = hook.Write
	for _, op := range ops {
		call.Paths = append(call.Paths, abs(call.Cwd, op.path))
		if op.moveTo != "" {
			call.Paths = append(call.Paths, abs(call.Cwd, op.moveTo))
		}
	}
	if len(ops) == 1 {
		call.Content, call.Edits, call.Executable = payload(ops[0])
	}
	return nil
}

// payload is what the broker would do for one file section: the whole
// content of an added file, or one replacement per hunk of an update.
// Deleting or moving a file has no such form.
func payload(op fileOp) (*string, []queue.Edit, bool) {
	switch {
	case op.verb == "Add":
		var b strings.Builder
		for _, l := range op.lines {
			s, ok := strings.CutPrefix(l, "+")
			if !ok {
				return nil, nil, false
			}
			b.WriteString(s + "\n")
		}
		content := b.String()
		return &content, nil, true
	case op.verb == "Update" && op.moveTo == "":
		edits, ok := hunks(op.lines)
		return nil, edits, ok && len(edits) > 0
	}
	return nil, nil, false
}

// hunks turns an update's body into replacements: each hunk's context and
// removed lines become the old text, its context and added lines the new.
func hunks(lines []string) ([]queue.Edit, bool) {
	var edits []queue.Edit
	var old, neu []string
	flush := func() bool {
		if len(old) == 0 && len(neu) == 0 {
			return true
		}
		if len(old) == 0 { // pure insertion: nowhere to anchor it
			return false
		}
		edits = append(edits, queue.Edit{OldString: strings.Join(old, "\n"), NewString: strings.Join(neu, "\n")})
		old, neu = nil, nil
		return true
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@"), l == "*** End of File":
			if !flush() {
				return nil, false
			}
		case strings.HasPrefix(l, "-"):
			old = append(old, l[1:])
		case strings.HasPrefix(l, "+"):
			neu = append(neu, l[1:])
		case strings.HasPrefix(l, " "), l == "":
			ctx := strings.TrimPrefix(l, " ")
			old, neu = append(old, ctx), append(neu, ctx)
		default:
			return nil, false
		}
	}
	return edits, flush()
}

func abs(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}
