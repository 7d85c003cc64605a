package watch

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// RenderOptions shape how a request is printed.
type RenderOptions struct {
	Folder string    // the project root, shown when watching several
	Now    time.Time // "created" says how long ago from Now (zero: not said)
	// Tag, in a repository's inbox, is the agent whose folder the request
	// arrived in; the request's own "agent" is then shown as its client.
	Tag *inbox.Tag
}

// RenderRequest writes everything the human must see about req before
// deciding, whole (a pager, not the renderer, decides what fits on a
// screen): where an approval runs, the policy's hits recomputed and ranked
// riskiest first (rv), the payload, then the rest. Every text the agent
// controls is escaped (display.Escape), and the content hash identifies
// exactly what will run.
func RenderRequest(w io.Writer, req *queue.Request, rv *review.Review, o RenderOptions) {
	fmt.Fprintf(w, "── request %s  [%s]\n", req.ID, req.Kind)
	if rv.Refused != "" {
		fmt.Fprintf(w, "  %-8s %s: it will not run whatever you decide; deny it\n", "REFUSED", rv.Refused)
	}
	if rv.Stale != "" {
		fmt.Fprintf(w, "  %-8s %s\n", "STALE", rv.Stale)
	}
	if o.Tag != nil {
		renderTag(w, *o.Tag)
	}
	if o.Folder != "" {
		field(w, "folder", o.Folder)
	}
	for i, l := range rv.Where {
		label := ""
		if i == 0 {
			label = "where"
		}
		field(w, label, l)
	}
	renderHits(w, rv)
	renderAlways(w, rv)
	renderPayload(w, req)
	field(w, "cwd", req.Cwd)
	if rv.Origin != "" {
		field(w, "origin", rv.Origin)
		field(w, "claims", rv.Claims)
	} else {
		field(w, "source", req.Source+"   (as the request says)")
		label := "agent"
		if o.Tag != nil {
			label = "client"
		}
		field(w, label, orNone(req.Agent)+"   session "+orNone(req.Session))
	}
	if req.Justification != "" {
		block(w, "why", req.Justification)
	}
	fmt.Fprintf(w, "  %-8s %s\n", "hash", display.EscapeLine(req.Hash))
	fmt.Fprintf(w, "  %-8s %s\n", "created", when(req.Created, o.Now))
}

// renderTag says whose folder the request arrived in: by the folder,
// whatever the request says of itself.
func renderTag(w io.Writer, t inbox.Tag) {
	if t.IsMain() || t.Agent == "" {
		field(w, "agent", inbox.MainName+"   (the repository's own folder)")
		return
	}
	field(w, "agent", t.Agent+"   (by the folder it arrived in)")
	field(w, "branch", t.Branch)
	field(w, "worktree", t.Worktree)
}

// renderHits lists every distinct rule hit, the ones that need a human
// first, most dangerous first; never capped.
func renderHits(w io.Writer, rv *review.Review) {
	needs, allowed := rv.Needs(), rv.Allowed()
	head := fmt.Sprintf("%s: %d part%s need%s you, riskiest first", rv.Tier, len(needs), plural(len(needs)), verbS(len(needs)))
	if len(allowed) > 0 {
		head += fmt.Sprintf("; %d allowed", len(allowed))
	}
	if !rv.Recomputed {
		head += " (the policy could not be loaded: these are the requester's own reasons)"
	}
	fmt.Fprintf(w, "  %-8s %s\n", "policy", head)
	width := len("allowed")
	for _, h := range needs {
		width = max(width, len(h.RiskNames()))
	}
	for _, h := range needs {
		mark := "!"
		if h.Tier == policy.Deny {
			mark = "✗"
		}
		fmt.Fprintf(w, "           %s %-*s  %s\n", mark, width, h.RiskNames(), h.Line())
	}
	for _, h := range allowed {
		fmt.Fprintf(w, "           ✓ %-*s  %s\n", width, "allowed", h.Line())
	}
}

// renderAlways says why the request asks (the responsible part and the
// narrowest rule that would allow it) and what "approve always" can
// remember for each escalated part: the exact pattern, the general one
// ([g]) where no other rule lies in its territory, or why none.
func renderAlways(w io.Writer, rv *review.Review) {
	if rv.Why != "" {
		fmt.Fprintf(w, "  %-8s %s\n", "", rv.Why)
	}
	for i, pr := range rv.Always {
		label := ""
		if i == 0 {
			label = "always"
		}
		if pr.Exact == "" {
			fmt.Fprintf(w, "  %-8s %s %s: no rule can cover it: %s\n", label, pr.Trigger, pr.Subject, pr.Why)
			continue
		}
		line := fmt.Sprintf("%s exact `%s`", pr.Trigger, pr.Exact)
		if pr.General != "" {
			line += fmt.Sprintf("  or [g] general `%s`", pr.General)
		} else if pr.Why != "" {
			line += "  (no general pattern: " + pr.Why + ")"
		}
		fmt.Fprintf(w, "  %-8s %s\n", label, line)
	}
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

func renderPayload(w io.Writer, req *queue.Request) {
	switch req.Kind {
	case queue.KindShell:
		renderShell(w, req.Shell)
	case queue.KindWrite:
		renderWrite(w, req.Write)
	case queue.KindRead:
		if req.Read != nil {
			field(w, "read", req.Read.Path)
		}
	case queue.KindNetwork:
		if req.Network != nil {
			field(w, "connect", req.Network.Target())
		}
	case queue.KindMCP:
		if req.MCP != nil {
			field(w, "tool", req.MCP.Tool)
			block(w, "args", string(req.MCP.Arguments))
		}
	}
}

func renderShell(w io.Writer, p *queue.ShellPayload) {
	if p == nil {
		return
	}
	if len(p.Argv) > 0 {
		field(w, "argv", display.QuoteArgv(p.Argv)+"   (no shell)")
	} else {
		block(w, "script", p.Script)
		field(w, "shell", orNone(p.Shell))
	}
	if len(p.Stdin) > 0 {
		block(w, "stdin", string(p.Stdin))
	}
}

func renderWrite(w io.Writer, p *queue.WritePayload) {
	if p == nil {
		return
	}
	if p.Content != nil {
		field(w, "write", p.Path)
		block(w, "content", *p.Content)
		return
	}
	field(w, "edit", p.Path)
	for i, e := range p.Edits {
		all := ""
		if e.ReplaceAll {
			all = " (every occurrence)"
		}
		fmt.Fprintf(w, "  edit %d%s\n", i+1, all)
		block(w, "  old", e.OldString)
		block(w, "  new", e.NewString)
	}
}

// RenderResult writes a finished request for `sandbox show`: its
// decision, by whom, its exit and the hash of what ran, escaped.
func RenderResult(w io.Writer, res *queue.Result) {
	fmt.Fprintf(w, "── request %s  [%s]  %s\n", res.ID, res.Kind, res.Decision)
	fmt.Fprintf(w, "  %-8s %s\n", "summary", res.Summary)
	field(w, "session", orNone(res.Session))
	field(w, "by", res.Approver.User+" ("+res.Approver.Surface+")")
	fmt.Fprintf(w, "  %-8s %s\n", "decided", when(res.Decided, time.Time{}))
	if res.Reason != "" {
		block(w, "reason", res.Reason)
	}
	if res.Always != "" {
		field(w, "always", res.Always)
	}
	if res.ExitCode != nil {
		fmt.Fprintf(w, "  %-8s %d %s\n", "exit", *res.ExitCode, res.Signal)
		fmt.Fprintf(w, "  %-8s %s\n", "took", ms(res.DurationMS))
	}
	if res.LogPath != "" {
		field(w, "log", res.LogPath)
	}
	fmt.Fprintf(w, "  %-8s %s\n", "hash", display.EscapeLine(res.RequestHash))
}

// field prints one labelled line; the value is escaped onto one line.
func field(w io.Writer, label, value string) {
	fmt.Fprintf(w, "  %-8s %s\n", label, display.EscapeLine(value))
}

// block prints a labelled multi-line value, whole, each line escaped and
// indented with a bar so that the human sees where it starts and ends.
func block(w io.Writer, label, value string) {
	lines := strings.Split(value, "\n")
	fmt.Fprintf(w, "  %-8s (%d line%s, %d bytes)\n", label, len(lines), plural(len(lines)), len(value))
	for _, l := range lines {
		fmt.Fprintf(w, "           │ %s\n", display.EscapeLine(l))
	}
}

func when(t, now time.Time) string {
	s := t.Local().Format("2006-01-02 15:04:05")
	if !now.IsZero() && now.After(t) {
		s += " (" + now.Sub(t).Round(time.Second).String() + " ago)"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
