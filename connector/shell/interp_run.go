package shell

import "strings"

// interpreter classifies an interpreter run: Exec was already added.
func (w *walker) interpreter(s *interpSpec, argv []Word, c cmdCtx) {
	name := argv[0].Text
	if c.stdinDoc {
		w.a.opaqueSrc(c.src, "here-document fed to the interpreter "+name)
		return
	}
	switch s.program(argv[1:]) {
	case progCode:
		w.a.opaqueSrc(c.src, name+" runs program text given on the command line")
	case progStdin:
		if !s.noStdin && !c.open {
			w.a.opaqueSrc(c.src, name+" reads its program from standard input")
		}
	case progDynamic:
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be program text")
	case progFile:
		w.pythonModule(argv, c)
	}
}

type progKind int

const (
	progStdin   progKind = iota // no program: read from stdin
	progFile                    // a file or module
	progCode                    // program text on the command line
	progDynamic                 // cannot tell
	progNone                    // nothing runs (--version)
)

// program finds where the interpreter's program comes from.
func (s *interpSpec) program(args []Word) progKind {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		switch {
		case a.Dynamic && mayBeOption(a):
			return progDynamic
		case a.Dynamic:
			return progFile
		case knownOption(s.infoOpts, t):
			return progNone
		case t == "-":
			return progStdin
		case t == "--":
			if i+1 < len(args) {
				return progFile
			}
			return progStdin
		case strings.HasPrefix(t, "--"):
			k, skip := s.longOpt(t)
			if k != progStdin {
				return k
			}
			i += skip
		case len(t) > 1 && t[0] == '-':
			k, skip := s.shortCluster(t, args[i+1:])
			if k != progStdin {
				return k
			}
			i += skip
		default:
			return progFile
		}
	}
	return progStdin
}

// longOpt classifies --opt[=v]; progStdin means "keep going" and skip
// says how many following words it consumed.
func (s *interpSpec) longOpt(t string) (progKind, int) {
	name, _, has := strings.Cut(t, "=")
	for _, l := range s.codeLong {
		if longIs(name, l) {
			return progCode, 0
		}
	}
	if !has && (&optSpec{argLong: s.argLong}).longTakesArg(name) {
		return progStdin, 1
	}
	return progStdin, 0
}

// shortCluster classifies -abc; next are the words after it.
func (s *interpSpec) shortCluster(t string, next []Word) (progKind, int) {
	for j := 1; j < len(t); j++ {
		ch := t[j]
		switch {
		case strings.IndexByte(s.codeShort, ch) >= 0:
			return progCode, 0
		case strings.IndexByte(s.moduleShort, ch) >= 0:
			return progFile, 0
		case strings.IndexByte(s.scriptShort, ch) >= 0:
			return progFile, 0
		case strings.IndexByte(s.optShort, ch) >= 0:
			// The rest may be its argument (-i.bak) or more options
			// (-lne): code letters anywhere in it count.
			if strings.ContainsAny(t[j+1:], s.codeShort) && s.codeShort != "" {
				return progCode, 0
			}
			return progStdin, 0
		case strings.IndexByte(s.argShort, ch) >= 0:
			return s.shortValue(ch, t[j+1:], next)
		}
	}
	return progStdin, 0
}

// shortValue handles an option with an argument, checking module names
// that can smuggle code (perl -M'POSIX;system(...)').
func (s *interpSpec) shortValue(ch byte, attached string, next []Word) (progKind, int) {
	value, skip := attached, 0
	if attached == "" {
		if len(next) == 0 {
			return progStdin, 0
		}
		if next[0].Dynamic {
			return progDynamic, 1
		}
		value, skip = next[0].Text, 1
	}
	if strings.IndexByte(s.checkShort, ch) >= 0 && !isModuleSpec(value) {
		return progCode, skip
	}
	return progStdin, skip
}

// isModuleSpec reports Foo::Bar or Foo::Bar=a,b (perl -M).
func isModuleSpec(v string) bool {
	mod, args, _ := strings.Cut(strings.TrimPrefix(v, "-"), "=")
	if mod == "" {
		return false
	}
	for i := 0; i < len(mod); i++ {
		c := mod[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == ':') {
			return false
		}
	}
	for i := 0; i < len(args); i++ {
		c := args[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == ',' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
