package shell

import "strings"

// posixShells are shells whose -c body is analysed as bash.
var posixShells = map[string]bool{
	"bash": true, "sh": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "ksh93": true, "pdksh": true, "rbash": true,
	"lksh": true, "oksh": true, "loksh": true, "hush": true,
}

// shellArgs is a parsed shell command line.
type shellArgs struct {
	cmdString bool   // -c
	stdin     bool   // -s
	bad       string // an option that makes it read other code
	operands  []Word
}

// shellWrapper: sh -c BODY is analysed recursively; sh FILE is an Exec;
// sh reading stdin is Opaque.
func shellWrapper(w *walker, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	sa := parseShellArgs(argv[1:])
	switch {
	case sa.bad != "":
		w.exec(argv, c)
		w.a.opaqueSrc(c.src, name+" "+sa.bad)
	case sa.cmdString && len(sa.operands) > 0:
		body := sa.operands[0]
		if body.Dynamic {
			w.exec(argv, c)
			w.a.opaqueSrc(c.src, name+" -c with a command string that is not literal")
			return
		}
		w.nestedShell(body.Text, c.wrapped(name+" -c"), name == "zsh")
	case sa.cmdString:
		w.exec(argv, c)
	case len(sa.operands) > 0 && mayBeOption(sa.operands[0]) && sa.operands[0].Dynamic:
		w.exec(argv, c)
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be -c")
	case len(sa.operands) == 0 || sa.stdin:
		w.exec(argv, c)
		if !c.open {
			w.a.opaqueSrc(c.src, name+" reads commands from standard input")
		}
	default:
		w.exec(argv, c) // runs a script file: the policy decides
	}
}

func parseShellArgs(args []Word) shellArgs {
	var sa shellArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		switch {
		case a.Dynamic:
			sa.operands = args[i:]
			return sa
		case t == "--" || t == "-":
			sa.operands = args[i+1:]
			return sa
		case strings.HasPrefix(t, "--"):
			if !knownOption(shellLongOpts, t) {
				sa.bad = "option " + t + " can read other code"
				return sa
			}
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			i += sa.cluster(t[1:], args[i+1:])
		default:
			sa.operands = args[i:]
			return sa
		}
	}
	return sa
}

const shellLongOpts = "--norc --noprofile --posix --login --noediting --restricted --verbose " +
	"--dump-strings --dump-po-strings --pretty-print --help --version"

// cluster handles -abc / +abc; -o NAME and -O NAME consume a word.
func (sa *shellArgs) cluster(letters string, next []Word) int {
	skip := 0
	for j := 0; j < len(letters); j++ {
		switch letters[j] {
		case 'c':
			sa.cmdString = true
		case 's':
			sa.stdin = true
		case 'o', 'O':
			if skip < len(next) {
				skip++
			}
		}
	}
	return skip
}
