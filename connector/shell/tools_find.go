package shell

// findArgPredicates take one argument (two for -fprintf, see below).
var findArgPredicates = map[string]bool{
	"-amin": true, "-anewer": true, "-atime": true, "-cmin": true, "-cnewer": true, "-ctime": true,
	"-context": true, "-fstype": true, "-gid": true, "-group": true, "-ilname": true, "-iname": true,
	"-inum": true, "-ipath": true, "-iregex": true, "-iwholename": true, "-links": true, "-lname": true,
	"-mmin": true, "-mtime": true, "-name": true, "-newer": true, "-path": true, "-perm": true,
	"-regex": true, "-samefile": true, "-size": true, "-type": true, "-uid": true, "-used": true,
	"-user": true, "-wholename": true, "-xtype": true, "-maxdepth": true, "-mindepth": true,
	"-printf": true, "-regextype": true, "-files0-from": true, "-D": true,
}

// findGlobPredicates match names against a pattern.
var findGlobPredicates = map[string]bool{
	"-name": true, "-iname": true, "-lname": true, "-ilname": true, "-path": true, "-ipath": true,
	"-wholename": true, "-iwholename": true, "-regex": true, "-iregex": true,
}

// findTool: find's start paths are read; -exec/-ok and -delete escalate;
// -fprint* write; name patterns are checked against protected names.
func findTool(w *walker, argv []Word, c cmdCtx) {
	args := argv[1:]
	i := skipFindOptions(args)
	var starts []Word
	for ; i < len(args) && !isFindExprStart(args[i]); i++ {
		if mayBeOption(args[i]) {
			w.a.opaqueSrc(c.src, "find has an argument of unknown value that could be an action such as -exec or -delete")
			return
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []Word{{Text: "."}}
	}
	w.each(Read, starts, "find lists the tree", c)
	w.findExpr(args[i:], starts, c)
}

func skipFindOptions(args []Word) int {
	i := 0
	for i < len(args) && !args[i].Dynamic {
		switch t := args[i].Text; {
		case t == "-H" || t == "-L" || t == "-P" || len(t) > 2 && t[:2] == "-O":
			i++
		case t == "-D" && i+1 < len(args):
			i += 2
		default:
			return i
		}
	}
	return i
}

func isFindExprStart(a Word) bool {
	t := a.Text
	return !a.Dynamic && (len(t) > 1 && t[0] == '-' || t == "(" || t == ")" || t == "!" || t == ",")
}

func (w *walker) findExpr(expr, starts []Word, c cmdCtx) {
	emacs := true // -regex's syntax until a -regextype
	for i := 0; i < len(expr); i++ {
		t := expr[i].Text
		if expr[i].Dynamic {
			w.a.opaqueSrc(c.src, "find has an argument of unknown value that could be an action such as -exec or -delete")
			return
		}
		switch t {
		case "-exec", "-execdir", "-ok", "-okdir":
			w.a.opaqueSrc(c.src, "find "+t+" runs a command on each match")
			return
		case "-delete":
			w.a.opaqueSrc(c.src, "find -delete removes every match")
			w.each(Write, starts, "find -delete removes files under it", c)
		case "-files0-from":
			// The start points come from a file (or stdin): trees of
			// unknown names are listed.
			if i+1 < len(expr) {
				w.pathEffect(Read, expr[i+1], "find -files0-from reads the list of start points", c.src)
				w.a.add(Effect{Kind: Read, Path: "(the start points " + expr[i+1].Text + " names)", Dynamic: true,
					Reason: "find lists the trees a list names", Source: c.src})
			}
			i++
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			w.a.opaqueSrc(c.src, "find "+t+" writes a file")
			if i+1 < len(expr) {
				w.pathEffect(Write, expr[i+1], "find "+t+" writes the file", c.src)
			}
			i++
			if t == "-fprintf" {
				i++
			}
		case "-regextype":
			if i+1 < len(expr) {
				emacs = expr[i+1].Text == "emacs"
				i++
			}
		case "-regex", "-iregex":
			if i+1 < len(expr) && !expr[i+1].Dynamic {
				w.protectRegex(expr[i+1].Text, c.src, emacs, t == "-iregex")
			}
			i++
		default:
			if findArgPredicates[t] && i+1 < len(expr) {
				if findGlobPredicates[t] && !expr[i+1].Dynamic {
					w.protectGlob(expr[i+1].Text, c.src)
				}
				i++
			}
		}
	}
}
