package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// varTable tracks, for one shell, which variables hold values known to be
// integers. Arithmetic evaluates the value of a variable as an expression,
// and an array subscript inside that value runs command substitutions:
// x='a[$(id)]'; echo $((x)) runs id. So arithmetic may only read variables
// that this script itself set to numbers before the first read.
type varTable struct {
	vars  map[string]*varInfo
	refs  []arithRef
	assoc map[string]bool // declared associative arrays (-A)
	// arrays are the variables the script makes arrays; compound the
	// declarations whose value may be a compound assignment (arrays.go).
	arrays   map[string]bool
	compound []arithRef
	// strings are assignments of values not known to be integers: an
	// integer variable (declare -i, maybe declared later in a loop)
	// evaluates them as arithmetic. Checked at the end.
	strings []strAssign
	optRefs []optRef
	// loops are the for loops' variables over plain items (loopvars.go).
	loops    map[string][]Word
	loopUses []optRef
}

type strAssign struct{ name, src string }

// optRef is a read of a variable standing where an option may be,
// accepted on the condition that every assignment of it is plain.
type optRef struct{ name, what, src string }

type varInfo struct {
	firstAssign int  // offset+1 of the first assignment; 0 when none
	unsafe      bool // some assignment is not known to be an integer
	intAttr     bool // declare -i: every assignment is arithmetic
	// assigns counts every assignment; plain those of a literal that
	// cannot be an option or hold a subscript (vars_plain.go).
	assigns, plain int
}

type arithRef struct {
	name string
	off  int
	node syntax.Node
}

func (t *varTable) info(name string) *varInfo {
	if t.vars == nil {
		t.vars = make(map[string]*varInfo, 4)
	}
	v := t.vars[name]
	if v == nil {
		v = &varInfo{}
		t.vars[name] = v
	}
	return v
}

// assignName records an assignment to name (which may carry a subscript)
// at node n, and escalates assignments that change what runs.
func (w *walker) assignName(name string, n syntax.Node, integer bool) {
	w.assignAt(name, int(n.Pos().Offset()), partSource(w.src, n), integer)
}

// assignAt records an assignment to name at offset off; src is shown.
func (w *walker) assignAt(name string, off int, src string, integer bool) {
	base, sub, _ := strings.Cut(name, "[")
	if sub != "" && strings.ContainsAny(sub, "$`") {
		w.a.opaqueSrc(src, "array subscript in a variable name can run commands")
	}
	if reason := dangerousVar(base); reason != "" {
		w.a.opaqueSrc(src, "assignment to "+base+" "+reason)
	}
	v := w.vars.info(base)
	v.assigns++
	if v.firstAssign == 0 {
		v.firstAssign = off + 1
	}
	if !integer {
		v.unsafe = true
		if len(w.vars.strings) < MaxEffects {
			w.vars.strings = append(w.vars.strings, strAssign{name: base, src: src})
		}
	}
}

// arithRef records that arithmetic reads the variable name.
func (w *walker) arithRef(name string, n syntax.Node) {
	if safeSpecialVars[name] {
		return
	}
	if len(w.vars.refs) < MaxEffects {
		w.vars.refs = append(w.vars.refs, arithRef{name: name, off: int(n.Pos().Offset()), node: n})
	}
}

// safeSpecialVars are set by bash itself to integers.
var safeSpecialVars = map[string]bool{
	"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "SRANDOM": true,
	"SECONDS": true, "LINENO": true, "BASHPID": true, "PPID": true, "UID": true,
	"EUID": true, "EPOCHSECONDS": true, "BASH_SUBSHELL": true, "SHLVL": true,
	"HISTCMD": true, "OPTIND": true,
}

// finish reports the arithmetic reads of variables whose value is not
// known to be an integer at that point.
func (w *walker) finish() {
	w.finishCompound()
	w.finishOptRefs()
	w.finishLoops()
	for _, s := range w.vars.strings {
		if v := w.vars.vars[s.name]; v != nil && v.intAttr {
			w.a.opaqueSrc(s.src, "assignment to the integer variable "+s.name+" evaluates the value as arithmetic (an array subscript in it would run commands)")
		}
	}
	seen := map[string]bool{}
	for _, r := range w.vars.refs {
		v := w.vars.vars[r.name]
		if v != nil && !v.unsafe && v.firstAssign > 0 && v.firstAssign-1 < r.off {
			continue
		}
		if !seen[r.name] {
			seen[r.name] = true
			w.opaque(r.node, "arithmetic reads $"+r.name+", whose value is not known to be a number (an array subscript in it would run commands)")
		}
	}
}

// isIntegerWord reports a word whose value is certainly an integer: a
// literal number, $((...)), ${#x}, $#, $?, $$, $!.
func isIntegerWord(v *wordVal) bool {
	if len(v.alts) != 1 || v.glob || v.tooBig {
		return false
	}
	segs := v.alts[0]
	if lit, ok := v.literal(); ok {
		return isIntegerText(lit)
	}
	if len(segs) != 1 || segs[0].kind != segDyn {
		return false
	}
	t := segs[0].text
	switch {
	case strings.HasPrefix(t, "$((") && strings.HasSuffix(t, "))"),
		strings.HasPrefix(t, "${#") && !strings.ContainsAny(t[3:], ":/%#^,@"),
		t == "$#" || t == "$?" || t == "$$" || t == "$!":
		return true
	}
	return false
}

// isIntegerText reports a decimal, 0x hex or BASE#digits integer.
func isIntegerText(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" {
		return false
	}
	if b, digits, ok := strings.Cut(s, "#"); ok {
		return isIntegerText(b) && digits != "" && isAlnum(digits)
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return len(s) > 2 && isAlnum(s[2:])
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || isLetter(c) || c == '_' || c == '@') {
			return false
		}
	}
	return true
}

// isName reports a valid shell variable name.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || isLetter(c) || c == '_') {
			return false
		}
	}
	return true
}
