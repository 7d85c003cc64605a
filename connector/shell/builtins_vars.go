package shell

import "strings"

// varBuiltinHandler returns handlers for builtins that assign or name
// variables, or evaluate strings.
func varBuiltinHandler(name string) handler {
	switch name {
	case "let":
		return letBuiltin
	case "read":
		return readBuiltin
	case "mapfile", "readarray":
		return mapfileBuiltin
	case "printf":
		return printfCommand
	case "echo":
		return echoCommand
	case "getopts":
		return getoptsBuiltin
	case "wait":
		return waitBuiltin
	case "unset":
		return unsetBuiltin
	case "test", "[":
		return testCommand
	case "compgen":
		return compgenBuiltin
	}
	return nil
}

// assignWord records an assignment, by a builtin, to the variable named
// by a word (read NAME, printf -v NAME, ...).
func (w *walker) assignWord(n Word, what string, c cmdCtx) {
	name := w.nameOperand(n, what, c)
	if name == "" {
		return
	}
	w.assignAt(name, c.off, c.src, false)
}

// letBuiltin: each argument is a string evaluated as arithmetic.
func letBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	for _, a := range argv[1:] {
		if a.Dynamic || !isIntegerText(a.Text) {
			w.a.opaqueSrc(c.src, "let evaluates a string as arithmetic")
			return
		}
	}
}

func readBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := bashGetopt(argv[1:], readOpts)
	if w.badOptions(&p, "read", c) {
		return
	}
	for _, v := range p.values('a') {
		w.assignWord(v, "read -a", c)
		w.markArray(baseOf(v.Text))
	}
	for _, n := range p.operands {
		w.assignWord(n, "read", c)
	}
}

func mapfileBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	name := argv[0].Text
	p := bashGetopt(argv[1:], mapfileOpts)
	if w.badOptions(&p, name, c) {
		return
	}
	if p.has('C') {
		w.a.opaqueSrc(c.src, name+" -C runs a callback string")
	}
	for _, n := range p.operands {
		w.assignWord(n, name, c)
		w.markArray(baseOf(n.Text))
	}
}

// getoptsBuiltin: getopts OPTSTRING NAME [ARG...] assigns NAME.
func getoptsBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := bashGetopt(argv[1:], noOpts)
	if w.badOptions(&p, "getopts", c) {
		return
	}
	if len(p.operands) > 1 {
		w.assignWord(p.operands[1], "getopts", c)
	}
}

// waitBuiltin: wait -p NAME assigns the job's process id to NAME.
func waitBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := bashGetopt(argv[1:], waitOpts)
	if w.badOptions(&p, "wait", c) {
		return
	}
	for _, n := range p.values('p') {
		w.assignWord(n, "wait -p", c)
	}
}

func unsetBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := bashGetopt(argv[1:], unsetOpts)
	if w.badOptions(&p, "unset", c) {
		return
	}
	for _, n := range p.operands {
		name := w.nameOperand(n, "unset", c)
		if reason := dangerousVar(name); reason != "" && !p.has('f') {
			w.a.opaqueSrc(c.src, "unset "+name+" "+reason)
		}
	}
}

// testCommand: test and [ evaluate the subscript of the NAME in -v NAME
// and -R NAME. Which word is an operator depends on the words' values
// (test's argument-count rules), so any word of unknown value may be -v,
// and an unquoted expansion or glob may even become "-v NAME" itself.
func testCommand(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	args := argv[1:]
	if n := len(args); argv[0].Text == "[" && n > 0 && args[n-1].Text == "]" && !args[n-1].Dynamic {
		args = args[:n-1]
	}
	for i, a := range args {
		if a.Dynamic && maySplit(a) {
			w.a.opaqueSrc(c.src, argv[0].Text+" with an unquoted expansion or glob, which can become -v NAME and evaluate a subscript")
			return
		}
		if i+1 < len(args) && (a.Dynamic || a.Text == "-v" || a.Text == "-R") && !testNameSafe(args[i+1]) {
			w.a.opaqueSrc(c.src, argv[0].Text+" -v with a name whose subscript can run commands")
			return
		}
	}
}

// testNameSafe reports a word that, as the operand of test -v, evaluates
// nothing: a literal without a subscript, or with a safe one.
func testNameSafe(n Word) bool {
	return !n.Dynamic && (!containsByte(n.Text, '[') || safeVarRef(n.Text))
}

// maySplit reports a dynamic word that may expand to several words (or
// to none): one with an unquoted expansion or glob, or "$@". Unquoted
// expansions that are always one number ($#, $?, $((...))) do not split,
// as IFS cannot be changed unnoticed (see dangerousVar).
func maySplit(a Word) bool {
	t := a.Text
	if a.Glob {
		return true
	}
	if isIntegerWord(&wordVal{dynamic: true, alts: [][]seg{{{kind: segDyn, text: t}}}}) {
		return false
	}
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return true
	}
	return containsAny(t[1:len(t)-1], "\"@")
}

// compgenBuiltin: -C and -F run a command or function, -W's word list
// is expanded as shell words (command substitutions run), -V NAME
// assigns an array.
func compgenBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := bashGetopt(argv[1:], compgenOpts)
	if w.badOptions(&p, "compgen", c) {
		return
	}
	if p.has('C') || p.has('F') {
		w.a.opaqueSrc(c.src, "compgen -C/-F runs a command or function")
	}
	for _, l := range p.values('W') {
		if l.Dynamic || containsAny(l.Text, "$`") {
			w.a.opaqueSrc(c.src, "compgen -W expands its word list as shell words")
		}
	}
	for _, n := range p.values('V') {
		w.assignWord(n, "compgen -V", c)
		w.markArray(baseOf(n.Text))
	}
}

// printfCommand: printf -v NAME assigns; escapes in the format and %b
// arguments can spell a protected name. bash's printf reads its options
// as its other builtins do (-vNAME, --); /usr/bin/printf has none, so
// the words after them are checked too.
func printfCommand(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := bashGetopt(w.plainFormat(argv, c)[1:], printfOpts)
	if w.badOptions(&p, "printf", c) {
		w.protectDecoded(argv[1:], c)
		return
	}
	for _, n := range p.values('v') {
		w.assignWord(n, "printf -v", c)
	}
	w.protectDecoded(argv[1:], c)
}

// echoCommand: echo -e (or xpg_echo) decodes escapes.
func echoCommand(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	w.protectDecoded(argv[1:], c)
}

// protectDecoded checks arguments after printf and echo -e escape
// decoding (\x2e, \056, and echo's \0056).
func (w *walker) protectDecoded(args []Word, c cmdCtx) {
	for _, a := range args {
		if a.Dynamic || !containsByte(a.Text, '\\') {
			continue
		}
		if dec := decodeANSIC(a.Text); dec != a.Text {
			w.protectText(dec, c.src)
		}
		if strings.Contains(a.Text, `\0`) {
			w.protectText(decodeANSIC(strings.ReplaceAll(a.Text, `\0`, `\`)), c.src)
		}
	}
}

// baseOf is the variable name of NAME or NAME[SUBSCRIPT].
func baseOf(s string) string {
	base, _, _ := cutByte(s, '[')
	return base
}
