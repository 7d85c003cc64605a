package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// arith walks an arithmetic expression: command substitutions run, array
// subscripts are evaluated, variables are read (see varTable).
func (w *walker) arith(x syntax.ArithmExpr, d int) {
	if !w.enter(x, d) {
		return
	}
	switch x := x.(type) {
	case *syntax.BinaryArithm:
		w.binaryArith(x, d+1)
	case *syntax.UnaryArithm:
		w.arith(x.X, d+1)
		if x.Op == syntax.Inc || x.Op == syntax.Dec {
			w.arithAssign(x.X, d+1)
		}
	case *syntax.ParenArithm:
		w.arith(x.X, d+1)
	case *syntax.Word:
		w.arithWord(x, d+1)
	default:
		w.opaque(x, "arithmetic form not understood")
	}
}

func (w *walker) binaryArith(x *syntax.BinaryArithm, d int) {
	if x.Op == syntax.Assgn {
		w.arithAssign(x.X, d) // written, not read
	} else {
		w.arith(x.X, d)
		if isArithAssign(x.Op) {
			w.arithAssign(x.X, d)
		}
	}
	w.arith(x.Y, d)
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn,
		syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// arithAssign records that arithmetic assigns the variable x (a number).
func (w *walker) arithAssign(x syntax.ArithmExpr, d int) {
	word, ok := x.(*syntax.Word)
	if !ok || len(word.Parts) != 1 {
		w.opaque(x, "arithmetic assignment target not understood")
		return
	}
	switch p := word.Parts[0].(type) {
	case *syntax.Lit:
		w.assignName(p.Value, p, true)
	case *syntax.ParamExp:
		if p.Index != nil {
			w.index(p.Param, p.Index, d)
		}
		w.assocTwice(p)
		if p.Param != nil {
			w.assignName(p.Param.Value, p, true)
			if p.Index != nil {
				w.markArray(p.Param.Value)
			}
		}
	default:
		w.opaque(x, "arithmetic assignment target not understood")
	}
}

// arithWord walks an operand: a literal number or name, or expansions
// whose values are then evaluated as arithmetic.
func (w *walker) arithWord(word *syntax.Word, d int) {
	for _, p := range word.Parts {
		w.arithPart(p, d)
	}
}

func (w *walker) arithPart(p syntax.WordPart, d int) {
	switch p := p.(type) {
	case *syntax.Lit:
		if isName(p.Value) {
			w.arithRef(p.Value, p)
		}
	case *syntax.ParamExp:
		w.paramExp(p, d)
		w.assocTwice(p)
		if p.Param != nil && !p.Length {
			w.arithRef(p.Param.Value, p.Param)
		}
	case *syntax.CmdSubst:
		w.subshell(p.Stmts, d)
		w.opaque(p, "arithmetic on command output can run commands (array subscript)")
	case *syntax.ArithmExp:
		w.arith(p.X, d)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			w.arithPart(q, d)
		}
	case *syntax.SglQuoted:
		// bash expands arithmetic (and array subscripts, and slice
		// offsets) as if double-quoted: single quotes do not quote
		// there, and echo ${a['$(id)']} or $(( '$(id)' )) runs id.
		if p.Dollar || strings.ContainsAny(p.Value, "$`") {
			w.opaque(p, "bash expands $ and ` inside single quotes in arithmetic and array subscripts")
		}
	default:
		w.opaque(p, "arithmetic operand not understood")
	}
}

// letClause walks let's expressions. A quoted argument is a string that
// let evaluates as arithmetic at run time: only a plain number is safe.
func (w *walker) letClause(c *syntax.LetClause, d int) {
	for _, x := range c.Exprs {
		word, ok := x.(*syntax.Word)
		if ok && hasQuotes(word) {
			v := w.word(word, d, false)
			if lit, ok := v.literal(); !ok || !isIntegerText(lit) {
				w.opaque(word, "let evaluates a quoted string as arithmetic")
			}
			continue
		}
		w.arith(x, d)
	}
}

func hasQuotes(word *syntax.Word) bool {
	for _, p := range word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// assocTwice escalates an associative array's subscript that holds an
// expansion, in arithmetic: bash before 5.2 expands it a second time
// there (k='$(id)'; (( m[$k]++ )) runs id).
func (w *walker) assocTwice(p *syntax.ParamExp) {
	if p.Param == nil || p.Index == nil || !w.vars.assoc[p.Param.Value] {
		return
	}
	if word, ok := p.Index.(*syntax.Word); ok {
		if _, lit := fastLiteral(word); lit {
			return
		}
	}
	w.opaque(p, "arithmetic on an associative array element whose subscript has an expansion (bash before 5.2 expands it twice)")
}
