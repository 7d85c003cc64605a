package shell

import "strings"

// Bash builtins parse their options with their own getopt
// (builtins/bashgetopt.c), not getopt_long: options end at the first
// word that is not one (or after --), a letter followed by ':' in the
// option string takes the rest of its word or else the next word
// whatever it looks like (printf -vNAME, read -ra NAME), and "+x" is an
// option only for builtins whose option string starts with '+'
// (declare). These are bash 5.3's option strings.
const (
	declareOpts = "+acfgilnprtuxAFGI" // declare, typeset, local
	exportOpts  = "aAfnp"             // export, readonly
	readOpts    = "Eersa:d:i:n:p:t:u:N:"
	mapfileOpts = "d:u:n:O:tC:c:s:"
	unsetOpts   = "fnv"
	waitOpts    = "fnp:"
	printfOpts  = "v:"
	compgenOpts = "abcdefgjko:prsuvA:G:W:P:S:X:F:C:V:DEI"
	noOpts      = "" // getopts: only -- is accepted
)

// bashOpt is one option a builtin parsed: its letter, and its value for
// letters that take one.
type bashOpt struct {
	ch  byte
	val Word
}

// bashArgs is what a builtin's getopt made of its words. bad says why
// the words could not be read as bash reads them ("" when they could).
type bashArgs struct {
	opts     []bashOpt
	operands []Word
	bad      string
	help     bool // --help: the builtin prints its help and does nothing
}

// bashGetopt parses args (without the builtin's name) with spec, a bash
// option string.
func bashGetopt(args []Word, spec string) bashArgs {
	var p bashArgs
	plus := strings.HasPrefix(spec, "+")
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.Text
		switch {
		case a.Dynamic:
			if mayBeOption(a) {
				p.bad = "an argument of unknown value stands where an option may be"
			}
			p.operands = args[i:]
			return p
		case len(t) < 2 || t[0] != '-' && !(plus && t[0] == '+'):
			p.operands = args[i:]
			return p
		case t == "--help":
			p.help = true
			return p
		case t == "--":
			p.operands = args[i+1:]
			return p
		}
		var ok bool
		if i, ok = p.cluster(args, i, spec); !ok {
			return p
		}
	}
	return p
}

// cluster parses one word of option letters; false when it is invalid
// (bash then prints a usage error and the builtin does nothing, but an
// analyzer that does not know the letter fails closed).
func (p *bashArgs) cluster(args []Word, i int, spec string) (int, bool) {
	t := args[i].Text
	for j := 1; j < len(t); j++ {
		c := t[j]
		k := strings.IndexByte(spec, c)
		if c == ':' || c == '+' || k < 0 {
			p.bad = "option -" + string(c) + " not understood"
			return i, false
		}
		if k+1 >= len(spec) || spec[k+1] != ':' {
			p.opts = append(p.opts, bashOpt{ch: c})
			continue
		}
		switch {
		case j+1 < len(t):
			p.opts = append(p.opts, bashOpt{ch: c, val: Word{Text: t[j+1:]}})
		case i+1 < len(args):
			i++
			p.opts = append(p.opts, bashOpt{ch: c, val: args[i]})
		default:
			p.bad = "option -" + string(c) + " lacks its argument"
			return i, false
		}
		return i, true
	}
	return i, true
}

// has reports whether option letter c was given.
func (p *bashArgs) has(c byte) bool {
	for _, o := range p.opts {
		if o.ch == c {
			return true
		}
	}
	return false
}

// values returns the values given to option letter c.
func (p *bashArgs) values(c byte) []Word {
	var out []Word
	for _, o := range p.opts {
		if o.ch == c {
			out = append(out, o.val)
		}
	}
	return out
}

// letters returns the option letters given, in order.
func (p *bashArgs) letters() string {
	b := make([]byte, len(p.opts))
	for i, o := range p.opts {
		b[i] = o.ch
	}
	return string(b)
}

// safeVarRef reports a variable name that bash uses without evaluating
// anything: a plain identifier, optionally with a subscript of decimal
// digits (an optional leading minus) or @ or *. Any other subscript is
// evaluated: as arithmetic for an indexed array, where a variable's value
// is itself evaluated and an array reference in it runs $(...)
// (x='b[$(id)]'; printf -v 'a[x]' 1 runs id), and expanded for an
// associative one.
func safeVarRef(s string) bool {
	base, sub, ok := cutByte(s, '[')
	if !isName(base) {
		return false
	}
	if !ok {
		return true
	}
	sub, ok = strings.CutSuffix(sub, "]")
	if !ok {
		return false
	}
	if sub == "@" || sub == "*" {
		return true
	}
	return isIntegerText(sub) && strings.Trim(strings.TrimPrefix(sub, "-"), "0123456789") == ""
}

// nameOperand checks a word that a builtin uses as a variable name and
// returns the plain variable name, or "" (with an Opaque effect) when
// bash could evaluate something to use it.
func (w *walker) nameOperand(n Word, what string, c cmdCtx) string {
	if n.Dynamic {
		w.a.opaqueSrc(c.src, what+" with a variable name that is not literal (a subscript in it can run commands)")
		return ""
	}
	if !safeVarRef(n.Text) {
		w.a.opaqueSrc(c.src, what+" with the name "+clip(n.Text)+", which is not a plain variable name (a subscript in it can run commands)")
		return ""
	}
	base, _, _ := cutByte(n.Text, '[')
	return base
}

// badOptions reports a builtin's option words that could not be read as
// bash reads them; true when there were such words.
func (w *walker) badOptions(p *bashArgs, name string, c cmdCtx) bool {
	if p.bad == "" {
		return false
	}
	w.a.opaqueSrc(c.src, name+": "+p.bad)
	return true
}
