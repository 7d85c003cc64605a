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
	case "unset":
		return unsetBuiltin
	case "test", "[":
		return testCommand
	case "compgen":
		return compgenBuiltin
	}
	return nil
}

// assignWord records an assignment to the variable named by a word.
func (w *walker) assignWord(name Word, c cmdCtx) {
	if name.Dynamic {
		w.a.opaqueSrc(c.src, "variable name is not literal")
		return
	}
	w.assignAt(name.Text, c.off, c.src, false)
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
	p := parseArgs(argv[1:], &optSpec{argShort: "adinNptu"})
	for _, v := range p.values("-a") {
		w.assignWord(v, c)
	}
	for _, n := range p.operands {
		w.assignWord(n, c)
	}
}

func mapfileBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := parseArgs(argv[1:], &optSpec{argShort: "dnOsuCc"})
	if p.has("-C") {
		w.a.opaqueSrc(c.src, argv[0].Text+" -C runs a callback string")
	}
	for _, n := range p.operands {
		w.assignWord(n, c)
	}
}

func getoptsBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	if len(argv) > 2 {
		w.assignWord(argv[2], c)
	}
}

func unsetBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := parseArgs(argv[1:], &optSpec{})
	for _, n := range p.operands {
		if n.Dynamic {
			w.a.opaqueSrc(c.src, "unset of a name that is not literal")
			continue
		}
		if hasCodeSubscript(n.Text) {
			w.a.opaqueSrc(c.src, "array subscript in a variable name can run commands")
		}
		if reason := dangerousVar(n.Text); reason != "" && !p.has("-f") {
			w.a.opaqueSrc(c.src, "unset "+n.Text+" "+reason)
		}
	}
}

// testCommand: test/[ with -v NAME or -R NAME evaluates NAME's subscript.
func testCommand(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	for i := 1; i+1 < len(argv); i++ {
		if t := argv[i].Text; (t == "-v" || t == "-R") && !argv[i].Dynamic {
			n := argv[i+1]
			if n.Dynamic || hasCodeSubscript(n.Text) {
				w.a.opaqueSrc(c.src, "test "+t+" with a name whose subscript can run commands")
			}
		}
	}
}

func compgenBuiltin(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	p := parseArgs(argv[1:], &optSpec{argShort: "AGWXFCPSo"})
	if p.has("-C", "-F") {
		w.a.opaqueSrc(c.src, "compgen -C/-F runs a command or function")
	}
}

// printfCommand: printf -v NAME assigns; escapes in the format and %b
// arguments can spell a protected name.
func printfCommand(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	args := argv[1:]
	if len(args) > 1 && args[0].Text == "-v" && !args[0].Dynamic {
		w.assignWord(args[1], c)
		args = args[2:]
	}
	w.protectDecoded(args, c)
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
