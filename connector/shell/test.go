package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// test walks a [[ ]] expression.
func (w *walker) test(x syntax.TestExpr, d int) {
	if !w.enter(x, d) {
		return
	}
	switch x := x.(type) {
	case *syntax.BinaryTest:
		w.binaryTest(x, d+1)
	case *syntax.UnaryTest:
		w.unaryTest(x, d+1)
	case *syntax.ParenTest:
		w.test(x.X, d+1)
	case *syntax.Word:
		w.word(x, d+1, true)
	default:
		w.opaque(x, "test expression not understood")
	}
}

func (w *walker) binaryTest(x *syntax.BinaryTest, d int) {
	switch x.Op {
	case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
		// Both sides are evaluated as arithmetic.
		w.testArith(x.X, d)
		w.testArith(x.Y, d)
	case syntax.TsMatch, syntax.TsNoMatch, syntax.TsReMatch, syntax.TsMatchShort:
		w.test(x.X, d)
		w.testPattern(x.Y, d)
	default:
		w.test(x.X, d)
		w.test(x.Y, d)
	}
}

func (w *walker) testArith(x syntax.TestExpr, d int) {
	if word, ok := x.(*syntax.Word); ok {
		w.arithWord(word, d)
		return
	}
	w.test(x, d)
}

// testPattern walks the right side of == or =~: a pattern, not a path.
func (w *walker) testPattern(x syntax.TestExpr, d int) {
	if word, ok := x.(*syntax.Word); ok {
		w.word(word, d, false)
		return
	}
	w.test(x, d)
}

func (w *walker) unaryTest(x *syntax.UnaryTest, d int) {
	if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
		if word, ok := x.X.(*syntax.Word); ok {
			v := w.word(word, d, false)
			w.checkVarNameWord(&v, word)
			return
		}
	}
	w.test(x.X, d)
}

// checkVarNameWord escalates a variable-name operand of [[ -v ]] and
// [[ -R ]] that is not literal or whose subscript bash would evaluate
// (see safeVarRef).
func (w *walker) checkVarNameWord(v *wordVal, n syntax.Node) {
	name, ok := v.literal()
	if !ok {
		w.opaque(n, "variable name is not literal")
		return
	}
	if !safeVarRef(name) && containsByte(name, '[') {
		w.opaque(n, "array subscript in a variable name can run commands")
	}
}
