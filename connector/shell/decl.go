package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// assign walks NAME=VALUE before a command (prefix) or on its own.
func (w *walker) assign(as *syntax.Assign, prefix bool, d int) {
	if as.Name == nil {
		w.opaque(as, "assignment not understood")
		return
	}
	name := as.Name.Value
	if as.Index != nil {
		w.index(as.Name, as.Index, d)
	}
	if as.Index != nil || as.Array != nil {
		w.markArray(name)
	}
	integer, plain := w.assignValue(as, d)
	if prefix {
		if reason := dangerousVar(name); reason != "" {
			w.opaque(as, name+"= before a command "+reason)
		}
		return
	}
	w.assignName(name, as.Name, integer)
	if plain && !as.Append && as.Index == nil {
		w.vars.info(name).plain++
	}
	if as.Append {
		// x+=1 appends (a string, unless x is an integer variable, which
		// then adds the number).
		w.vars.info(name).unsafe = true
	}
}

// assignValue walks the value of an assignment and reports whether it is
// an integer, and whether it is plain (plainValue).
func (w *walker) assignValue(as *syntax.Assign, d int) (integer, plain bool) {
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if el.Index != nil {
				w.index(as.Name, el.Index, d)
			}
			w.wordOpt(el.Value, d, true)
		}
		return false, false
	}
	if as.Value == nil {
		return true, true // x= is empty, which arithmetic reads as 0
	}
	v := w.word(as.Value, d, true)
	return isIntegerWord(&v), plainValue(&v)
}

// declClause walks declare, local, export, readonly, typeset and nameref.
func (w *walker) declClause(c *syntax.DeclClause, d int) {
	variant := c.Variant.Value
	flags := ""
	var strs []*syntax.Assign // quoted or escaped words: NAME[=VALUE] as a string
	var lits []string
	for _, as := range c.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			v := w.word(as.Value, d, true)
			lit, ok := v.literal()
			if !ok {
				w.opaque(as, variant+" with an argument that is not literal")
				continue
			}
			if f := declFlags(lit); f != "" {
				flags += f
			} else {
				strs, lits = append(strs, as), append(lits, lit)
			}
		}
	}
	if variant == "nameref" || strings.Contains(flags, "n") && variant != "export" {
		w.opaque(c, variant+" -n makes a name refer to any variable")
	}
	for _, as := range c.Args {
		if as.Name != nil {
			w.declName(variant, flags, as, d)
		}
	}
	for i, as := range strs {
		w.declOperand(variant, flags, lits[i], cmdCtx{src: partSource(w.src, as), off: int(as.Pos().Offset())})
	}
}

// declFlags returns the option letters of -abc or +abc, or "" for a word
// that is not an option.
func declFlags(s string) string {
	if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
		return s[1:]
	}
	return ""
}

func (w *walker) declName(variant, flags string, as *syntax.Assign, d int) {
	name := as.Name.Value
	if strings.Contains(flags, "A") {
		w.vars.assocSet(name)
	}
	if containsAny(flags, "aA") || as.Index != nil || as.Array != nil {
		w.markArray(name)
	}
	w.declValue(flags, as)
	if strings.Contains(flags, "i") {
		w.vars.info(name).intAttr = true
	}
	if as.Index != nil {
		w.index(as.Name, as.Index, d)
	}
	if as.Naked {
		if variant == "local" || variant == "declare" || variant == "typeset" {
			w.assignName(name, as.Name, true) // now empty in this scope
		} else if reason := dangerousVar(name); reason != "" {
			w.opaque(as, variant+" "+name+" "+reason)
		}
		return
	}
	integer, _ := w.assignValue(as, d)
	if strings.Contains(flags, "i") && !integer {
		w.opaque(as, variant+" -i evaluates the value as arithmetic")
	}
	w.assignName(name, as.Name, integer)
	if as.Append {
		w.vars.info(name).unsafe = true
	}
}

func (t *varTable) assocSet(name string) {
	if t.assoc == nil {
		t.assoc = make(map[string]bool, 2)
	}
	t.assoc[name] = true
}
