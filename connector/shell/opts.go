package shell

import "strings"

// optSpec describes a command's options well enough to find its operands.
type optSpec struct {
	argShort  string   // short options that take an argument (-o FILE, -oFILE)
	optShort  string   // short options with an optional attached argument (sed -i[SUF])
	argLong   []string // long options that take an argument (--opt VAL, --opt=VAL)
	flagLong  []string // long options without a separate argument that are prefixes of one in argLong (du --time)
	posixStop bool     // options end at the first operand (wrappers)
	exact     bool     // long options are never abbreviated (clap, argparse-less tools)
}

// option is one parsed option. name is "-x" or "--long" (before any =).
type option struct {
	name   string
	value  Word
	hasVal bool
}

type parsedArgs struct {
	opts     []option
	operands []Word
	dynamic  bool // a word of unknown value stood where an option may be
	rest     int  // index in args where the operands start (posixStop)
}

// parseArgs parses args (without the command name) getopt-style: clusters,
// attached values, --long=VAL, abbreviated long options, and --.
func parseArgs(args []Word, spec *optSpec) parsedArgs {
	var p parsedArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		switch {
		case a.Dynamic:
			p.dynamic = p.dynamic || mayBeOption(a)
			if spec.posixStop {
				p.rest = i
				p.operands = args[i:]
				return p
			}
			p.operands = append(p.operands, a)
		case t == "--":
			p.rest = i + 1
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case strings.HasPrefix(t, "--"):
			i = p.long(args, i, spec)
		case len(t) > 1 && t[0] == '-':
			i = p.short(args, i, spec)
		default:
			if spec.posixStop {
				p.rest = i
				p.operands = args[i:]
				return p
			}
			p.operands = append(p.operands, a)
		}
	}
	p.rest = len(args)
	return p
}

func (p *parsedArgs) long(args []Word, i int, spec *optSpec) int {
	name, val, has := strings.Cut(args[i].Text, "=")
	o := option{name: name, value: Word{Text: val}, hasVal: has}
	if !has && spec.longTakesArg(name) && i+1 < len(args) {
		i++
		o.value, o.hasVal = args[i], true
	}
	p.opts = append(p.opts, o)
	return i
}

func (p *parsedArgs) short(args []Word, i int, spec *optSpec) int {
	t := args[i].Text
	for j := 1; j < len(t); j++ {
		ch := t[j]
		name := "-" + string(ch)
		switch {
		case strings.IndexByte(spec.argShort, ch) >= 0:
			if j+1 < len(t) {
				p.opts = append(p.opts, option{name: name, value: Word{Text: t[j+1:]}, hasVal: true})
			} else if i+1 < len(args) {
				i++
				p.opts = append(p.opts, option{name: name, value: args[i], hasVal: true})
			} else {
				p.opts = append(p.opts, option{name: name})
			}
			return i
		case strings.IndexByte(spec.optShort, ch) >= 0:
			p.opts = append(p.opts, option{name: name, value: Word{Text: t[j+1:]}, hasVal: j+1 < len(t)})
			return i
		}
		p.opts = append(p.opts, option{name: name})
	}
	return i
}

// mayBeOption reports whether a dynamic word's value could start with -
// (or +): a glob or expansion at its start can expand to a name such as
// --checkpoint-action=exec=sh or -e (wildcard injection). A word that
// starts with fixed text (./*.go, src/$f, "dir/$x") cannot.
func mayBeOption(a Word) bool {
	t := a.Text
	if !a.Dynamic {
		return strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")
	}
	if !a.Glob && t != "" && (t[0] == '"' || t[0] == '\'') {
		t = t[1:] // the source of a quoted word: look at what it starts with
	}
	if t == "" {
		return true
	}
	if t[0] == '\\' {
		return len(t) < 2 || t[1] == '-' || t[1] == '+'
	}
	return strings.IndexByte("$`\"'{~*?[-+@!", t[0]) >= 0
}

// longTakesArg reports whether --name (possibly abbreviated) takes an
// argument.
func (s *optSpec) longTakesArg(name string) bool {
	for _, l := range s.flagLong {
		if name == l {
			return false // an exact match wins over an abbreviation
		}
	}
	for _, l := range s.argLong {
		if name == l || !s.exact && longIs(name, l) {
			return true
		}
	}
	return false
}

// longIs reports whether the option as written selects the long option
// full, allowing the unambiguous abbreviations getopt_long accepts.
func longIs(name, full string) bool {
	return name == full || len(name) >= 3 && strings.HasPrefix(full, name)
}

// has reports whether any option is one of names (short exact, long
// possibly abbreviated).
func (p *parsedArgs) has(names ...string) bool {
	_, ok := p.find(names...)
	return ok
}

// find returns the first option that is one of names.
func (p *parsedArgs) find(names ...string) (option, bool) {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n || strings.HasPrefix(n, "--") && strings.HasPrefix(o.name, "--") && longIs(o.name, n) {
				return o, true
			}
		}
	}
	return option{}, false
}

// values returns the values of every option that is one of names.
func (p *parsedArgs) values(names ...string) []Word {
	var out []Word
	for _, o := range p.opts {
		for _, n := range names {
			if o.hasVal && (o.name == n || strings.HasPrefix(n, "--") && strings.HasPrefix(o.name, "--") && longIs(o.name, n)) {
				out = append(out, o.value)
				break
			}
		}
	}
	return out
}
