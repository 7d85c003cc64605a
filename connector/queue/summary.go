package queue

import (
	"fmt"
	"strconv"
	"strings"

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
		return joinArgv(r.Shell.Argv)
	case r.Kind == KindWrite && r.Write != nil:
		if r.Write.Content != nil {
			return fmt.Sprintf("%s (%d bytes)", r.Write.Path, len(*r.Write.Content))
		}
		return fmt.Sprintf("%s (%d edits)", r.Write.Path, len(r.Write.Edits))
	case r.Kind == KindRead && r.Read != nil:
		return r.Read.Path
	case r.Kind == KindNetwork && r.Network != nil:
		if r.Network.URL != "" {
			return r.Network.URL
		}
		return r.Network.Host + ":" + strconv.Itoa(r.Network.Port)
	case r.Kind == KindMCP && r.MCP != nil:
		return r.MCP.Tool + " " + string(r.MCP.Arguments)
	}
	return "(empty " + string(r.Kind) + " request)"
}

// joinArgv shows an argv the way a shell user would type it, quoting the
// arguments that need it.
func joinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = quoteArg(a)
	}
	return strings.Join(parts, " ")
}

func quoteArg(a string) string {
	if a != "" && !strings.ContainsFunc(a, needsQuote) {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

func needsQuote(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("-_./=:,+@%", r))
}
