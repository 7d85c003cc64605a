package policy

import (
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// ProposePattern proposes the narrowest pattern that an "approve always"
// of subject would remember: for shell, the exact argv (the subject is a
// Part's quoted argv); for write and read, the exact absolute path; for
// network, the exact host:port; for mcp, the exact tool name. It returns
// "" when no pattern can cover exactly that subject. Part.Propose, set by
// the engine on escalated parts, is the better source: it knows which
// words were dynamic.
func ProposePattern(t Trigger, subject string) string {
	r := &Rule{Trigger: t, Tier: Allow}
	switch t {
	case Shell:
		r.Pattern = subject
		if strings.ContainsAny(subject, "$`…") {
			return ""
		}
	case Write, Read:
		p := filepath.ToSlash(subject)
		if !strings.HasPrefix(p, "/") && !isDrivePattern(p) {
			return ""
		}
		r.Pattern = escapeGlob(p)
	case Network, MCP:
		r.Pattern = subject
	}
	if r.compile() != nil {
		return ""
	}
	return r.Pattern
}

// proposeArgv is the exact pattern for a command, or "" when a word is
// dynamic or the command is open-ended (no remembered rule could match
// it exactly).
func proposeArgv(ef shell.Effect) string {
	if ef.OpenEnded || len(ef.Args) == 0 {
		return ""
	}
	words := make([]string, len(ef.Args))
	for i, w := range ef.Args {
		if w.Dynamic || !printableWord(w.Text) {
			return ""
		}
		words[i] = quoteWord(w.Text)
	}
	return strings.Join(words, " ")
}

// escapeGlob escapes the characters that path patterns treat specially.
func escapeGlob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
