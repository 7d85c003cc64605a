package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
)

// sessionCall is one tool call of a scripted session (testdata/session/*.txt).
type sessionCall struct {
	line    int
	tool    string // Bash, Read, Write, Edit, Glob, Grep
	input   map[string]any
	offline bool     // a Bash call that leaves the machine: the human refuses it
	expect  []string // what its result must contain
}

// summary is the call as one line, for the test's messages.
func (c sessionCall) summary() string {
	for _, k := range []string{"command", "file_path", "pattern"} {
		if v, ok := c.input[k].(string); ok {
			return c.tool + " " + v
		}
	}
	return c.tool
}

// parseSession reads a session script; paths are made absolute in dir.
func parseSession(path, dir string) ([]sessionCall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		n++
		return sc.Text(), true
	}
	// block reads lines up to EOF, split at a "----" line when split
	block := func(split bool) (a, b string, err error) {
		var parts [2][]string
		i := 0
		for {
			l, ok := next()
			switch {
			case !ok:
				return "", "", fmt.Errorf("%s:%d: no EOF line", path, n)
			case l == "EOF":
				if split && i != 1 {
					return "", "", fmt.Errorf("%s:%d: an edit needs old text, ----, new text", path, n)
				}
				return strings.Join(parts[0], "\n"), strings.Join(parts[1], "\n"), nil
			case split && l == "----" && i == 0:
				i = 1
			default:
				parts[i] = append(parts[i], l)
			}
		}
	}
	abs := func(p string) string { return filepath.Join(dir, p) }
	var calls []sessionCall
	for {
		l, ok := next()
		if !ok {
			break
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		verb, arg, _ := strings.Cut(l, " ")
		c := sessionCall{line: n}
		switch verb {
		case "~":
			if len(calls) == 0 {
				return nil, fmt.Errorf("%s:%d: an expectation before any call", path, n)
			}
			calls[len(calls)-1].expect = append(calls[len(calls)-1].expect, strings.ReplaceAll(arg, `\t`, "\t"))
			continue
		case "$", "$!":
			c.tool, c.offline = "Bash", verb == "$!"
			// ten minutes, Claude Code's longest: a first build fills a cold cache
			c.input = map[string]any{"command": arg, "description": "scripted session, line " + fmt.Sprint(n), "timeout": 600000}
		case "read":
			c.tool, c.input = "Read", map[string]any{"file_path": abs(arg)}
		case "glob":
			c.tool, c.input = "Glob", map[string]any{"pattern": arg}
		case "grep":
			c.tool, c.input = "Grep", map[string]any{"pattern": arg, "output_mode": "content", "-n": true}
		case "write":
			content, _, err := block(false)
			if err != nil {
				return nil, err
			}
			c.tool, c.input = "Write", map[string]any{"file_path": abs(arg), "content": content + "\n"}
		case "edit":
			old, new, err := block(true)
			if err != nil {
				return nil, err
			}
			c.tool, c.input = "Edit", map[string]any{"file_path": abs(arg), "old_string": old, "new_string": new}
		default:
			return nil, fmt.Errorf("%s:%d: unknown line %q", path, n, l)
		}
		calls = append(calls, c)
	}
	return calls, sc.Err()
}

// replies turns the calls into the fake model's turns, one call each.
func replies(calls []sessionCall) []fakemodel.Reply {
	out := make([]fakemodel.Reply, len(calls))
	for i, c := range calls {
		out[i] = fakemodel.Reply{Text: "Next step.", ToolCalls: []fakemodel.ToolCall{{Name: c.tool, Input: c.input}}}
	}
	return out
}

// conversationResults reads the whole conversation a request carries (a
// request holds every message so far) and returns the result of each
// tool call in the order the model made them: Claude Code may follow a
// result with reminders of its own, so the last message alone does not do.
func conversationResults(body []byte) ([]fakemodel.ToolResult, error) {
	var b struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, err
	}
	type block struct {
		Type      string          `json:"type"`
		ID        string          `json:"id"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	var order []string
	byID := map[string]fakemodel.ToolResult{}
	for _, m := range b.Messages {
		var blocks []block
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, bl := range blocks {
			switch bl.Type {
			case "tool_use":
				order = append(order, bl.ID)
			case "tool_result":
				byID[bl.ToolUseID] = fakemodel.ToolResult{ID: bl.ToolUseID, Content: contentText(bl.Content), IsError: bl.IsError}
			}
		}
	}
	out := make([]fakemodel.ToolResult, len(order))
	for i, id := range order {
		out[i] = byID[id]
	}
	return out, nil
}

// contentText flattens a tool_result's content (a string or text blocks).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}
