package shell

import (
	"mvdan.cc/sh/v3/syntax"
)

// walker walks one parsed script (the top level or a nested shell body).
type walker struct {
	a          *analyzer
	src        string
	shellDepth int
	cwd        cwdState
	vars       varTable
	deep       bool   // "nesting too deep" already reported
	via        string // the shells this script is the body of ("bash -c")
	zsh        bool   // a zsh body: its glob qualifiers can run code
}

// shellBody analyses a command string run by a nested shell. The shell
// starts in this shell's directory; its own cd's stay inside it.
func (w *walker) shellBody(body string, c cmdCtx) {
	w.nestedShell(body, c, false)
}

func (w *walker) nestedShell(body string, c cmdCtx, zsh bool) {
	sub := &walker{a: w.a, shellDepth: w.shellDepth + 1, cwd: w.cwd, via: c.via, zsh: zsh}
	if w.cwd.dead {
		sub.cwd = cwdState{}
	}
	w.a.analyzeScript(body, sub)
}

// stmts walks a list in sequence and returns the state if the last one
// fails (see stmt).
func (w *walker) stmts(list []*syntax.Stmt, d int) cwdState {
	fail := w.cwd
	for i, s := range list {
		if i > 0 {
			w.cwd = merge(w.cwd, fail)
		}
		fail = w.stmt(s, d)
	}
	return fail
}

// stmt walks one statement. Afterwards w.cwd is the directory if it
// succeeded; it returns the directory if it failed (they differ after cd).
func (w *walker) stmt(s *syntax.Stmt, d int) cwdState {
	if !w.enter(s, d) {
		return w.cwd
	}
	if s.Background || s.Coprocess || s.Disown {
		save := w.cwd
		w.redirects(s, d+1)
		w.command(s, d+1)
		w.cwd = save
		return save
	}
	w.redirects(s, d+1)
	fail := w.command(s, d+1)
	if s.Negated {
		fail, w.cwd = w.cwd, fail
	}
	return fail
}

// enter bounds the nesting depth and the total work.
func (w *walker) enter(n syntax.Node, d int) bool {
	if w.a.exhausted || !w.a.spend(1, "") {
		return false
	}
	if d <= maxDepth {
		return true
	}
	if !w.deep {
		w.deep = true
		w.opaque(n, "nesting too deep")
	}
	return false
}

// command walks the command of s and returns its failure state.
func (w *walker) command(s *syntax.Stmt, d int) cwdState {
	switch c := s.Cmd.(type) {
	case nil:
		return w.cwd // only redirections
	case *syntax.CallExpr:
		return w.call(s, c, d)
	case *syntax.BinaryCmd:
		return w.binary(c, d)
	case *syntax.Block:
		return w.stmts(c.Stmts, d)
	case *syntax.Subshell:
		return w.subshell(c.Stmts, d)
	case *syntax.IfClause:
		return w.ifClause(c, d)
	case *syntax.WhileClause:
		return w.whileClause(c, d)
	case *syntax.ForClause:
		return w.forClause(c, d)
	case *syntax.CaseClause:
		return w.caseClause(c, d)
	}
	return w.otherCommand(s, d)
}

// otherCommand walks the commands that cannot change the directory.
func (w *walker) otherCommand(s *syntax.Stmt, d int) cwdState {
	switch c := s.Cmd.(type) {
	case *syntax.FuncDecl:
		w.funcDecl(c, d)
	case *syntax.ArithmCmd:
		w.arith(c.X, d)
	case *syntax.TestClause:
		w.test(c.X, d)
	case *syntax.DeclClause:
		w.declClause(c, d)
	case *syntax.LetClause:
		w.letClause(c, d)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			return w.stmt(c.Stmt, d)
		}
	case *syntax.CoprocClause:
		w.coproc(c, d)
	default:
		w.opaque(s, "shell construct not understood")
	}
	return w.cwd
}

// subshell walks statements that cannot change this shell's directory.
func (w *walker) subshell(list []*syntax.Stmt, d int) cwdState {
	save := w.cwd
	w.stmts(list, d)
	w.cwd = save
	return save
}

func (w *walker) binary(c *syntax.BinaryCmd, d int) cwdState {
	switch c.Op {
	case syntax.AndStmt:
		xf := w.stmt(c.X, d)
		yf := w.stmt(c.Y, d)
		return merge(xf, yf)
	case syntax.OrStmt:
		xf := w.stmt(c.X, d)
		xs := w.cwd
		w.cwd = xf
		yf := w.stmt(c.Y, d)
		w.cwd = merge(xs, w.cwd)
		return yf
	case syntax.Pipe, syntax.PipeAll:
		save := w.cwd
		w.stmt(c.X, d)
		w.cwd = save
		w.stmt(c.Y, d)
		w.cwd = save
		return save
	}
	w.opaque(c, "shell operator not understood")
	return w.cwd
}
