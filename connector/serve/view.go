package serve

import (
	"strconv"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Field is one labelled part of what a request asks, as `sandbox watch`
// prints it. Value is escaped with connector/display: a block's lines are
// each escaped on their own (EscapeLine) and joined with "\n"; any other
// value is one escaped line. The page shows it with textContent only.
type Field struct {
	Label string `json:"label"`
	Value string `json:"value"`
	Block bool   `json:"block,omitempty"`
	Lines int    `json:"lines,omitempty"` // for a block: its line count
	Bytes int    `json:"bytes,omitempty"` // for a block: its size before escaping
}

// RequestView is a request as the API shows it. Every text the agent
// controls is escaped; Hash identifies exactly what runs when approved.
type RequestView struct {
	ID      string      `json:"id"`
	Folder  string      `json:"folder"` // the folder's key (see /api/folders)
	Kind    queue.Kind  `json:"kind"`
	State   queue.State `json:"state"`
	Summary string      `json:"summary"`
	Fields  []Field     `json:"fields,omitempty"`
	Cwd     string      `json:"cwd,omitempty"`
	Source  string      `json:"source,omitempty"`
	// Client is the agent program the request says it comes from (as the
	// request says). Agent, Branch and Worktree, in a repository's inbox,
	// are whose folder it arrived in: the trusted side's, never the
	// request's own word.
	Client        string    `json:"client,omitempty"`
	Agent         string    `json:"agent,omitempty"`
	Branch        string    `json:"branch,omitempty"`
	Worktree      string    `json:"worktree,omitempty"`
	Session       string    `json:"session,omitempty"`
	Justification string    `json:"justification,omitempty"`
	PolicyReasons []string  `json:"policy_reasons,omitempty"`
	Hash          string    `json:"hash,omitempty"`
	Created       time.Time `json:"created,omitzero"`
	// Review is what the trusted side found out (pending and claimed
	// requests): every policy hit recomputed and ranked riskiest first,
	// where an approval runs, and whether anybody still waits. Headline is
	// its riskiest hits in a line, for lists (never a prefix of the
	// command). PolicyReasons are only what the request file claims.
	Review   *review.Review `json:"review,omitempty"`
	Headline string         `json:"headline,omitempty"`
	// Pattern is the proposed "approve always" pattern (escaped), empty
	// when remembered decisions are unavailable.
	Pattern string      `json:"pattern,omitempty"`
	Result  *ResultView `json:"result,omitempty"`
}

// viewRequest describes req in state s of the folder with key key.
func viewRequest(key string, req *queue.Request, s queue.State) *RequestView {
	reasons := make([]string, len(req.PolicyReasons))
	for i, r := range req.PolicyReasons {
		reasons[i] = display.EscapeLine(r)
	}
	return &RequestView{
		ID: req.ID, Folder: key, Kind: req.Kind, State: s, Summary: queue.Summarize(req),
		Fields: describe(req), Cwd: display.EscapeLine(req.Cwd), Source: display.EscapeLine(req.Source),
		Client: display.EscapeLine(req.Agent), Session: display.EscapeLine(req.Session),
		Justification: escapeBlock(req.Justification), PolicyReasons: reasons,
		Hash: display.EscapeLine(req.Hash), Created: req.Created,
	}
}

// describe lists the payload the way `sandbox watch` prints it.
func describe(req *queue.Request) []Field {
	switch {
	case req.Kind == queue.KindShell && req.Shell != nil:
		return describeShell(req.Shell)
	case req.Kind == queue.KindWrite && req.Write != nil:
		return describeWrite(req.Write)
	case req.Kind == queue.KindRead && req.Read != nil:
		return []Field{line("read", req.Read.Path)}
	case req.Kind == queue.KindNetwork && req.Network != nil:
		return []Field{line("connect", req.Network.Target())}
	case req.Kind == queue.KindMCP && req.MCP != nil:
		return []Field{line("tool", req.MCP.Tool), block("args", string(req.MCP.Arguments))}
	}
	return nil
}

func describeShell(p *queue.ShellPayload) []Field {
	var out []Field
	if len(p.Argv) > 0 {
		out = append(out, line("argv", display.QuoteArgv(p.Argv)+"   (no shell)"))
	} else {
		out = append(out, block("script", p.Script), line("shell", orNone(p.Shell)))
	}
	if len(p.Stdin) > 0 {
		out = append(out, block("stdin", string(p.Stdin)))
	}
	return out
}

func describeWrite(p *queue.WritePayload) []Field {
	if p.Content != nil {
		return []Field{line("write", p.Path), block("content", *p.Content)}
	}
	out := []Field{line("edit", p.Path)}
	for i, e := range p.Edits {
		n := "edit " + strconv.Itoa(i+1)
		if e.ReplaceAll {
			n += " (every occurrence)"
		}
		out = append(out, block(n+": old", e.OldString), block(n+": new", e.NewString))
	}
	return out
}

func line(label, value string) Field {
	return Field{Label: label, Value: display.EscapeLine(value)}
}

func block(label, value string) Field {
	return Field{Label: label, Value: escapeBlock(value), Block: true,
		Lines: strings.Count(value, "\n") + 1, Bytes: len(value)}
}

// escapeBlock escapes each line of s on its own, as `sandbox watch` does.
func escapeBlock(s string) string {
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = display.EscapeLine(l)
	}
	return strings.Join(lines, "\n")
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
