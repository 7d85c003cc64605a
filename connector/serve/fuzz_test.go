package serve

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// safe reports whether s can be shown as is: valid UTF-8 with no control
// character (but newlines where allowed) and nothing invisible.
func safe(s string, newlines bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == '\n' && newlines:
		case r < 0x20 || r == 0x7f || display.Invisible(r):
			return false
		}
	}
	return true
}

// FuzzOutputIsEscaped: whatever a command prints, in whatever chunks,
// the text sent to the page is safe and loses nothing but its escaping.
func FuzzOutputIsEscaped(f *testing.F) {
	f.Add([]byte("plain\n"), 3)
	f.Add([]byte("a\x1b[31mred\x1b[0m\r\n\u202eevil\u200b\n\xff\xfe"), 5)
	f.Add([]byte(strings.Repeat("é", 3000)), 4097)
	f.Fuzz(func(t *testing.T, out []byte, cut int) {
		if cut <= 0 {
			cut = 1
		}
		var l lineSplit
		var got strings.Builder
		for b := out; len(b) > 0; {
			n := min(cut, len(b))
			got.WriteString(l.push(b[:n]))
			b = b[n:]
		}
		got.WriteString(l.flush())
		if !safe(got.String(), true) {
			t.Fatalf("unsafe output %q from %q", got.String(), out)
		}
		if strings.Count(got.String(), "\n") != strings.Count(string(out), "\n") {
			t.Fatalf("lines changed: %q from %q", got.String(), out)
		}
	})
}

// FuzzRequestViewIsEscaped: every text of a request view is safe.
func FuzzRequestViewIsEscaped(f *testing.F) {
	f.Add("echo \x1b]0;owned\x07 \u202e", "why\u2066", "agent\r", "/tmp/\u200bx", "reason\x00")
	f.Fuzz(func(t *testing.T, script, why, agent, path, reason string) {
		reqs := []*queue.Request{
			{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script, Stdin: []byte(why)}},
			{Kind: queue.KindShell, Shell: &queue.ShellPayload{Argv: []string{script, why}}},
			{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: path, Content: &script}},
			{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: path, Edits: []queue.Edit{{OldString: why, NewString: script}}}},
			{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: path}},
			{Kind: queue.KindNetwork, Network: &queue.NetworkPayload{URL: script}},
			{Kind: queue.KindMCP, MCP: &queue.MCPPayload{Tool: agent, Arguments: []byte(why)}},
		}
		for _, r := range reqs {
			r.Cwd, r.Agent, r.Session, r.Source, r.Justification = path, agent, agent, agent, why
			r.PolicyReasons, r.Hash = []string{reason}, reason
			checkView(t, viewRequest("k", r, queue.StatePending))
		}
		res := &queue.Result{Reason: why, Stdout: script, Stderr: reason, Summary: script, Session: agent,
			Approver: queue.Approver{User: agent, Surface: reason}, Always: path, Signal: why, LogPath: path}
		checkView(t, viewDone("k", res))
	})
}

// checkView walks every string of v's JSON.
func checkView(t *testing.T, v *RequestView) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			if !safe(x, true) {
				t.Fatalf("unsafe text %q in %s", x, b)
			}
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	var x any
	json.Unmarshal(b, &x)
	walk(x)
}
