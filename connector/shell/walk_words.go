package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// opaque adds an Opaque effect for node n.
func (w *walker) opaque(n syntax.Node, reason string) {
	w.a.opaqueSrc(partSource(w.src, n), reason)
}

// word walks the commands inside a word (substitutions, arithmetic),
// evaluates it, and, when protect is set, checks it against the protected
// names.
func (w *walker) word(word *syntax.Word, d int, protect bool) wordVal {
	if !w.enter(word, d) {
		return wordVal{src: partSource(w.src, word), alts: [][]seg{{{kind: segDyn}}}, dynamic: true}
	}
	for _, p := range word.Parts {
		w.wordPart(p, d+1)
	}
	v := evalWord(word, w.src)
	if !w.a.spend(v.cost(), v.src) {
		return v
	}
	if v.opaque != "" {
		w.opaque(word, v.opaque)
	}
	if v.tooBig {
		w.opaque(word, "brace expansion too large to analyse")
	}
	if protect {
		w.protect(&v)
	}
	return v
}

// wordPart walks what a word part runs.
func (w *walker) wordPart(p syntax.WordPart, d int) {
	switch p := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
	case *syntax.ExtGlob:
		if w.zsh {
			w.opaque(p, "zsh glob qualifiers can run code")
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.wordPart(q, d)
		}
	case *syntax.CmdSubst:
		if p.TempFile || p.ReplyVar {
			w.opaque(p, "command substitution form not understood")
		}
		w.subshell(p.Stmts, d)
	case *syntax.ProcSubst:
		w.subshell(p.Stmts, d)
	case *syntax.ArithmExp:
		w.arith(p.X, d)
	case *syntax.ParamExp:
		w.paramExp(p, d)
	default:
		w.opaque(p, "word part not understood")
	}
}

// safeParamOps are the ${x@OP} transformations that do not evaluate the
// value (P expands it as a prompt, running command substitutions).
var safeParamOps = map[string]bool{"Q": true, "E": true, "A": true, "a": true, "U": true, "u": true, "L": true, "K": true, "k": true}

func (w *walker) paramExp(p *syntax.ParamExp, d int) {
	if p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet {
		w.opaque(p, "parameter expansion form not understood")
	}
	if p.Excl && p.Names == 0 && !allIndex(p.Index) {
		w.opaque(p, "indirect expansion ${!name} can run commands through an array subscript")
	}
	if p.Index != nil && !allIndex(p.Index) {
		w.index(p.Param, p.Index, d)
	}
	if p.Slice != nil {
		w.arithOpt(p.Slice.Offset, d)
		w.arithOpt(p.Slice.Length, d)
	}
	if p.Repl != nil {
		w.wordOpt(p.Repl.Orig, d, false)
		w.wordOpt(p.Repl.With, d, true)
	}
	if p.Exp != nil {
		w.paramOp(p, d)
	}
}

func (w *walker) paramOp(p *syntax.ParamExp, d int) {
	switch p.Exp.Op {
	case syntax.OtherParamOps:
		if lit, ok := fastLiteral(p.Exp.Word); !ok || !safeParamOps[lit] {
			w.opaque(p, "${name@"+lit+"} may evaluate the value")
		}
		return
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if p.Param != nil {
			w.assignName(p.Param.Value, p, false)
		}
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		w.wordOpt(p.Exp.Word, d, false) // a pattern, not a value
		return
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		// Inside double quotes (and a here-document's body) single
		// quotes in this word are plain characters: "${x:-'$(id)'}"
		// runs id. The parser reads them as quotes either way.
		if sglExpands(p.Exp.Word) {
			w.opaque(p, "bash expands $ and ` inside single quotes in ${name:-word} within double quotes")
		}
	}
	w.wordOpt(p.Exp.Word, d, true)
}

// sglExpands reports a single-quoted part of word that holds $ or a
// backquote, or is $'...'.
func sglExpands(word *syntax.Word) bool {
	if word == nil {
		return false
	}
	for _, part := range word.Parts {
		if q, ok := part.(*syntax.SglQuoted); ok && (q.Dollar || strings.ContainsAny(q.Value, "$`")) {
			return true
		}
	}
	return false
}

func (w *walker) wordOpt(word *syntax.Word, d int, protect bool) {
	if word != nil {
		w.word(word, d, protect)
	}
}

func (w *walker) arithOpt(x syntax.ArithmExpr, d int) {
	if x != nil {
		w.arith(x, d)
	}
}

// allIndex reports an index of @ or * (all elements), which is no
// arithmetic.
func allIndex(x syntax.ArithmExpr) bool {
	word, ok := x.(*syntax.Word)
	if !ok || word == nil {
		return false
	}
	lit, ok := fastLiteral(word)
	return ok && (lit == "@" || lit == "*")
}

// index walks an array subscript: arithmetic for an indexed array, a
// string (still expanded) for an associative one.
func (w *walker) index(name *syntax.Lit, x syntax.ArithmExpr, d int) {
	if name != nil && w.vars.assoc[name.Value] {
		if word, ok := x.(*syntax.Word); ok {
			w.word(word, d, false)
			return
		}
	}
	w.arith(x, d)
}
