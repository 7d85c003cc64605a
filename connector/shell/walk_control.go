package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

func (w *walker) ifClause(c *syntax.IfClause, d int) cwdState {
	if !w.enter(c, d) {
		return w.cwd
	}
	if len(c.Cond) == 0 { // "else"
		return w.stmts(c.Then, d+1)
	}
	cf := w.stmts(c.Cond, d+1)
	tf := w.stmts(c.Then, d+1)
	ts := w.cwd
	w.cwd = cf
	ef := cf
	if c.Else != nil {
		ef = w.ifClause(c.Else, d+1)
	}
	w.cwd = merge(ts, w.cwd)
	return merge(tf, ef)
}

// loopStart is the directory a loop body starts in: unknown when the loop
// may change it, since later iterations start wherever earlier ones left.
func (w *walker) loopStart(n syntax.Node) {
	if w.mayChangeDir(n) {
		w.cwd = merge(w.cwd, unknownCwd)
	}
}

func (w *walker) whileClause(c *syntax.WhileClause, d int) cwdState {
	w.loopStart(c)
	w.stmts(c.Cond, d)
	w.stmts(c.Do, d)
	return w.cwd
}

func (w *walker) forClause(c *syntax.ForClause, d int) cwdState {
	w.loopStart(c)
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		w.wordIter(l, c.Select, d)
	case *syntax.CStyleLoop:
		for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if x != nil {
				w.arith(x, d)
			}
		}
	default:
		w.opaque(c, "loop form not understood")
	}
	w.stmts(c.Do, d)
	return w.cwd
}

// wordIter walks `for NAME in ITEMS`: the items are words like any other,
// and NAME is assigned each of them.
func (w *walker) wordIter(l *syntax.WordIter, isSelect bool, d int) {
	numeric := !isSelect && l.InPos.IsValid()
	var items []Word
	for _, item := range l.Items {
		v := w.word(item, d, true)
		if !isIntegerWord(&v) {
			numeric = false
		}
		items = v.appendWords(items)
	}
	w.assignName(l.Name.Value, l.Name, numeric)
	if !isSelect && l.InPos.IsValid() {
		w.recordLoop(l.Name.Value, items)
	}
}

func (w *walker) caseClause(c *syntax.CaseClause, d int) cwdState {
	w.word(c.Word, d, true)
	start := w.cwd
	end := start
	fail := start
	for _, item := range c.Items {
		for _, p := range item.Patterns {
			w.word(p, d, false)
		}
		w.cwd = start
		fail = merge(fail, w.stmts(item.Stmts, d))
		end = merge(end, w.cwd)
	}
	w.cwd = end
	return fail
}

func (w *walker) funcDecl(c *syntax.FuncDecl, d int) {
	w.opaque(c, "function definition (it can shadow any command)")
	save := w.cwd
	if c.Body != nil {
		w.stmt(c.Body, d)
	}
	w.cwd = save
}

func (w *walker) coproc(c *syntax.CoprocClause, d int) {
	if c.Name != nil {
		w.word(c.Name, d, true)
	}
	save := w.cwd
	if c.Stmt != nil {
		w.stmt(c.Stmt, d)
	}
	w.cwd = save
}

// mayChangeDir reports whether n contains a command that could be cd,
// pushd or popd (or whose name is not literal). The nodes it visits count
// as work: nested loops visit their bodies again.
func (w *walker) mayChangeDir(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if found || !w.a.spend(1, "") {
			found = true
			return false
		}
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			name, lit := fastLiteral(c.Args[0])
			found = !lit || isDirChanger(name)
		}
		return !found
	})
	return found
}

func isDirChanger(name string) bool {
	switch name {
	case "cd", "pushd", "popd", "builtin", "command", "exec", "eval", "source", ".":
		return true
	}
	return false
}
