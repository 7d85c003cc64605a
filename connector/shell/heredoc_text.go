package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// heredocText is the value of "$(cat <<'EOF' ... EOF)" inside double
// quotes: the here-document's body without its trailing newlines, as the
// substitution yields it. Agents write every multi-line commit message
// and PR body so (Claude Code does by default); read as an unknown value,
// the message stood where any option could be (`git commit -m "$(...)"`
// matched `git ** --out* **`). Only the plain form folds: the command is
// `cat` alone, its one redirection a here-document whose delimiter is
// quoted (no expansion in the body). A function named cat, an alias or a
// PATH change would make it another program; each of those escalates on
// its own (function definitions, expand_aliases, PATH assignments).
func heredocText(p syntax.WordPart) (string, bool) {
	cs, ok := p.(*syntax.CmdSubst)
	if !ok || cs.TempFile || cs.ReplyVar || len(cs.Stmts) != 1 || len(cs.Last) > 0 {
		return "", false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(call.Assigns) > 0 ||
		len(call.Args) != 1 || len(st.Redirs) != 1 {
		return "", false
	}
	if name, ok := fastLiteral(call.Args[0]); !ok || name != "cat" {
		return "", false
	}
	r := st.Redirs[0]
	if r.Op != syntax.Hdoc || r.N != nil || r.Hdoc == nil || !quotedDelimiter(r.Word) {
		return "", false
	}
	var b strings.Builder
	for _, part := range r.Hdoc.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(lit.Value)
	}
	return strings.TrimRight(b.String(), "\n"), true
}

// quotedDelimiter reports a here-document delimiter with quotes in it,
// which makes the body literal.
func quotedDelimiter(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return true
			}
		}
	}
	return false
}
