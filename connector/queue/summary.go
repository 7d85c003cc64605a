package queue

import (
	"fmt"
	"strconv"

	"github.com/sandbox-dev/sandbox/connector/display"
)

// SummaryLen is the length, in runes, of a one-line summary.
const SummaryLen = 160

// Summarize returns one escaped, truncated line saying what r asks: the
// command, the path written or read, the destination, or the MCP tool.
// The full, escaped payload is for the approver's detail view.
func Summarize(r *Request) string {
	return display.Truncate(display.EscapeLine(rawSummary(r)), SummaryLen)
}

func rawSummary(r *Request) string {
	switch {
	case r.Kind == KindShell && r.Shell != nil:
		if r.Shell.Script != "" {
			return r.Shell.Script
		}
		return display.QuoteArgv(r.Shell.Argv)
	case r.Kind == KindWrite && r.Write != nil:
		if r.Write.Content != nil {
			return fmt.Sprintf("%s (%d bytes)", r.Write.Path, len(*r.Write.Content))
		}
		return fmt.Sprintf("%s (%d edits)", r.Write.Path, len(r.Write.Edits))
	case r.Kind == KindRead && r.Read != nil:
		return r.Read.Path
	case r.Kind == KindNetwork && r.Network != nil:
		return r.Network.Target()
	case r.Kind == KindMCP && r.MCP != nil:
		return r.MCP.Tool + " " + string(r.MCP.Arguments)
	}
	return "(empty " + string(r.Kind) + " request)"
}

// Target is the destination as one string: the URL, else HOST:PORT.
func (n *NetworkPayload) Target() string {
	if n.URL != "" {
		return n.URL
	}
	return n.Host + ":" + strconv.Itoa(n.Port)
}
