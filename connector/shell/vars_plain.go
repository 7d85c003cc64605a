package shell

import "strings"

// A format in a variable (fmt="%s: %d\n"; printf "$fmt" ...) is how
// scripts print tables. Read as an unknown value it stood where printf's
// -v NAME could be (whose subscript runs commands), so the whole script
// escalated. When every assignment of the variable in this script is a
// literal that starts with no '-' and holds no '[', and one comes before
// the read, the value is none of bash's options: it is read as such a
// word (an assignment in a subshell counts, as for the integer variables
// of arithmetic). The condition is checked when the walk ends
// (finishOptRefs), as a later assignment (in a loop) may come back to the
// read; a variable the script does not set comes from the environment,
// which stays unknown.

// plainValue reports a literal value that cannot be an option or an
// array reference.
func plainValue(v *wordVal) bool {
	lit, ok := v.literal()
	return ok && !strings.HasPrefix(lit, "-") && !strings.HasPrefix(lit, "+") && !strings.Contains(lit, "[")
}

// plainFormat returns argv with a first operand "$name" (or "${name}")
// replaced by a plain word when name is set plainly before, recording the
// condition for finishOptRefs.
func (w *walker) plainFormat(argv []Word, c cmdCtx) []Word {
	if len(argv) < 2 || !argv[1].Dynamic || argv[1].Glob {
		return argv
	}
	name, ok := quotedVarRef(argv[1].Text)
	if !ok {
		return argv
	}
	v := w.vars.vars[name]
	if v == nil || v.firstAssign == 0 || v.plain == 0 {
		return argv
	}
	w.vars.optRefs = append(w.vars.optRefs, optRef{name: name, what: argv[0].Text, src: c.src})
	out := append([]Word(nil), argv...)
	out[1] = Word{Text: "plain"}
	return out
}

// quotedVarRef parses "$name" and "${name}".
func quotedVarRef(t string) (string, bool) {
	if len(t) < 4 || t[0] != '"' || t[len(t)-1] != '"' || t[1] != '$' {
		return "", false
	}
	n := t[2 : len(t)-1]
	if strings.HasPrefix(n, "{") && strings.HasSuffix(n, "}") {
		n = n[1 : len(n)-1]
	}
	return n, isName(n)
}

// finishOptRefs escalates the reads whose variable was also set to
// something other than a plain literal.
func (w *walker) finishOptRefs() {
	for _, r := range w.vars.optRefs {
		if v := w.vars.vars[r.name]; v == nil || v.assigns != v.plain {
			w.a.opaqueSrc(r.src, r.what+": $"+r.name+" stands where an option may be, and not every value it is given is known")
		}
	}
}
