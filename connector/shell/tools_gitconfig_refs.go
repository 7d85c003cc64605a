package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// gitDefaultAlternateRefs reports whether a core.alternateRefsCommand
// value runs exactly what git runs when the key is unset:
//
//	git --git-dir="$1" for-each-ref --format='%(objectname)'
//
// alone or wrapped in a shell function called at once (`f() { ...; }; f`,
// as Claude Code writes it, so that a repository's own setting cannot
// name another program). git runs the value with `sh -c 'VALUE "$@"'`
// and the alternate repository's path as $1; every other value (empty
// included: then the path itself runs) is a program of the agent's.
func gitDefaultAlternateRefs(v string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(v), "")
	if err != nil {
		return false
	}
	stmts := f.Stmts
	if len(stmts) == 2 {
		fn, ok := stmts[0].Cmd.(*syntax.FuncDecl)
		if !ok || !plainStmt(stmts[0]) || !plainStmt(stmts[1]) || !callsOnly(stmts[1], fn.Name.Value) {
			return false
		}
		body, ok := fn.Body.Cmd.(*syntax.Block)
		if !ok || len(fn.Body.Redirs) > 0 {
			return false
		}
		stmts = body.Stmts
	}
	return len(stmts) == 1 && plainStmt(stmts[0]) &&
		callsOnly(stmts[0], "git", "--git-dir=\x00$1", "for-each-ref", "--format=%(objectname)")
}

// plainStmt is a statement with nothing around its command.
func plainStmt(s *syntax.Stmt) bool {
	return !s.Negated && !s.Background && !s.Coprocess && len(s.Redirs) == 0
}

// callsOnly reports whether s is a simple command whose words are want,
// without assignments. A quoted "$1" reads as "\x00$1".
func callsOnly(s *syntax.Stmt, want ...string) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) != len(want) {
		return false
	}
	for i, w := range call.Args {
		got, ok := plainWord(w)
		if !ok || got != want[i] {
			return false
		}
	}
	return true
}

// plainWord is a word's value when it is made only of literals, quoted
// strings and a double-quoted $1.
func plainWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\*?[]{}~") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					if strings.ContainsAny(q.Value, "\\") {
						return "", false
					}
					b.WriteString(q.Value)
				case *syntax.ParamExp:
					if src := printed(q); src != "$1" && src != "${1}" {
						return "", false
					}
					b.WriteString("\x00$1")
				default:
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// printed is a node as the shell would read it back.
func printed(n syntax.Node) string {
	var b strings.Builder
	if syntax.NewPrinter().Print(&b, n) != nil {
		return ""
	}
	return b.String()
}
