package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SimpleCommand returns the argument vector of script when bash would do
// nothing with it but start one program: a single command whose words
// are plain text (unquoted, or quoted without expansions), with no
// assignment, redirection, pipe, list, background or negation, whose name
// is not a builtin or keyword of bash. Anything else (or a script that
// does not parse) gives ok false, and the script must go to a shell.
//
// The jail then starts the program itself instead of a shell that would
// start it (jailspec.Spec.Direct). What the shell would still have done
// depends on its environment and the jail's PATH (an exported function of
// that name, BASH_ENV, a program not found): the jail's init checks those
// and starts the shell when one applies.
func SimpleCommand(script string) (argv []string, ok bool) {
	if len(script) > 4096 || strings.ContainsAny(script, "\x00\n\r") {
		return nil, false // one line; a long one is no usual command
	}
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	f, err := p.Parse(strings.NewReader(script), "")
	if err != nil || len(f.Stmts) != 1 || len(f.Last) > 0 {
		return nil, false
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(st.Comments) > 0 {
		return nil, false
	}
	call, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false
	}
	for _, w := range call.Args {
		s, plain := simpleWord(w)
		if !plain {
			return nil, false
		}
		argv = append(argv, s)
	}
	if argv[0] == "" || shellOwn(argv[0]) {
		return nil, false
	}
	return argv, true
}

// simpleWord is w's text when bash expands it to exactly that text, as one
// word: literal parts without glob, brace, tilde or escape characters,
// single quotes, and double quotes around such literals.
func simpleWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if !plainUnquoted(x.Value) || i == 0 && strings.HasPrefix(x.Value, "~") {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar { // $'...' has escapes
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar { // $"..." is translated
				return "", false
			}
			for _, in := range x.Parts {
				lit, isLit := in.(*syntax.Lit)
				if !isLit || strings.ContainsAny(lit.Value, "\\$`!") {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// plainUnquoted reports whether s, unquoted, is only itself to bash: no
// character that globs, braces, escapes, expands or ends a word.
func plainUnquoted(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_./:=,+%@", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// shellOwn reports whether bash runs name itself (a builtin, a keyword)
// rather than starting a program of that name. The list is bash 5's
// builtins (enable -a) and reserved words; a program of such a name is
// never what `bash -c NAME` runs.
func shellOwn(name string) bool {
	switch name {
	case ".", ":", "[", "[[", "]]", "{", "}", "!",
		"alias", "bg", "bind", "break", "builtin", "caller", "case", "cd", "command",
		"compgen", "complete", "compopt", "continue", "coproc", "declare", "dirs",
		"disown", "do", "done", "echo", "elif", "else", "enable", "esac", "eval",
		"exec", "exit", "export", "false", "fc", "fg", "fi", "for", "function",
		"getopts", "hash", "help", "history", "if", "in", "jobs", "kill", "let",
		"local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
		"readarray", "readonly", "return", "select", "set", "shift", "shopt",
		"source", "suspend", "test", "then", "time", "times", "trap", "true",
		"type", "typeset", "ulimit", "umask", "unalias", "unset", "until", "wait",
		"while":
		return true
	}
	return false
}
