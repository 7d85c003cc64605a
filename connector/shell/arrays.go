package shell

import "mvdan.cc/sh/v3/syntax"

// declare, local, typeset, export and readonly treat a value that starts
// with ( as a compound assignment when the variable is an array (-a, -A,
// or made one before): x=(1); declare x="$v" with v='([$(id)]=1)' runs
// id, though the value is quoted. Which variables are arrays depends on
// the order the script runs in (loops), so a declaration whose value may
// start with ( is checked at the end against every variable the script
// ever makes an array, and the arrays bash itself sets.

// bashArrays are the arrays bash sets.
var bashArrays = map[string]bool{
	"BASH_ALIASES": true, "BASH_ARGC": true, "BASH_ARGV": true, "BASH_CMDS": true,
	"BASH_LINENO": true, "BASH_REMATCH": true, "BASH_SOURCE": true, "BASH_VERSINFO": true,
	"COMP_WORDS": true, "COPROC": true, "DIRSTACK": true, "FUNCNAME": true, "GROUPS": true,
	"PIPESTATUS": true, "MAPFILE": true,
}

// markArray records that the script makes name an array.
func (w *walker) markArray(name string) {
	if w.vars.arrays == nil {
		w.vars.arrays = make(map[string]bool, 2)
	}
	w.vars.arrays[name] = true
}

// declValue checks the value of NAME=VALUE in a declaration clause.
func (w *walker) declValue(flags string, as *syntax.Assign) {
	if as.Naked || as.Array != nil || as.Value == nil {
		return
	}
	switch startsWithParen(as.Value) {
	case parenNo:
	case parenYes:
		w.opaque(as, "declaration whose value is a compound array assignment in quotes (its subscripts are evaluated)")
	default:
		if containsAny(flags, "aA") {
			w.opaque(as, "declaration of an array with a value of unknown text (a compound assignment in it evaluates subscripts)")
		} else if len(w.vars.compound) < MaxEffects {
			w.vars.compound = append(w.vars.compound, arithRef{name: as.Name.Value, node: as})
		}
	}
}

type parenStart uint8

const (
	parenNo    parenStart = iota // the value cannot start with (
	parenYes                     // it does
	parenMaybe                   // it starts with an expansion
)

// startsWithParen tells whether a word's value may start with (.
func startsWithParen(word *syntax.Word) parenStart {
	if len(word.Parts) == 0 {
		return parenNo
	}
	switch p := word.Parts[0].(type) {
	case *syntax.Lit:
		return litParen(p.Value)
	case *syntax.SglQuoted:
		return litParen(p.Value)
	case *syntax.DblQuoted:
		if len(p.Parts) == 0 {
			if len(word.Parts) > 1 {
				return startsWithParen(&syntax.Word{Parts: word.Parts[1:]})
			}
			return parenNo
		}
		if l, ok := p.Parts[0].(*syntax.Lit); ok {
			return litParen(l.Value)
		}
	}
	return parenMaybe
}

func litParen(s string) parenStart {
	switch {
	case s == "":
		return parenMaybe // what follows decides: be conservative
	case s[0] == '(':
		return parenYes
	}
	return parenNo
}

// finishCompound reports declarations whose value may be a compound
// assignment to a variable that is an array somewhere in the script.
func (w *walker) finishCompound() {
	for _, r := range w.vars.compound {
		if w.vars.arrays[r.name] || bashArrays[r.name] {
			w.opaque(r.node, "declaration of the array "+r.name+" with a value of unknown text (a compound assignment in it evaluates subscripts)")
		}
	}
}
