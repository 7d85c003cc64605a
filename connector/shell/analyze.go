package shell

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that bound the work done on hostile input. Anything beyond them
// becomes an Opaque effect.
const (
	// MaxScriptBytes is the largest script analysed; larger ones are Opaque.
	MaxScriptBytes = 256 << 10
	// MaxEffects caps the effects returned; the last one is then Opaque.
	MaxEffects = 4096
	// maxDepth caps the nesting of the walker (statements in statements,
	// words in words).
	maxDepth = 200
	// maxShellDepth caps nested `bash -c`, `watch`, `flock -c` bodies.
	maxShellDepth = 16
	// maxSource caps the excerpt kept in Effect.Source.
	maxSource = 200
)

// testHook, when set by a test, runs after each parse (to inject panics).
var testHook func()

var parsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// Analyze returns every effect the bash script could have. It never panics
// and never fails: whatever it cannot see through becomes an Opaque effect,
// so a caller that escalates on Opaque fails closed.
func Analyze(script string, opts Options) (effects []Effect) {
	a := newAnalyzer(opts)
	defer a.recoverInto(&effects)
	a.analyzeScript(script, &walker{a: a})
	return a.effects
}

// AnalyzeArgv returns the effects of running argv directly, without a shell:
// its words are literal (no quote removal, expansion or globbing by a shell).
func AnalyzeArgv(argv []string, opts Options) (effects []Effect) {
	a := newAnalyzer(opts)
	defer a.recoverInto(&effects)
	a.analyzeArgv(argv)
	return a.effects
}

// recoverInto turns a panic anywhere in the analysis into an Opaque effect
// (fail closed) on top of whatever was found before it.
func (a *analyzer) recoverInto(effects *[]Effect) {
	r := recover()
	if r == nil {
		return
	}
	out := append([]Effect(nil), a.effects...)
	if len(out) >= MaxEffects {
		out = out[:MaxEffects-1]
	}
	*effects = append(out, Effect{Kind: Opaque, Reason: "internal error in the shell analyzer"})
}

// analyzeScript parses and walks one script: the top level or the body of
// a nested shell. w is a fresh walker set up for it (depth, directory).
func (a *analyzer) analyzeScript(script string, w *walker) {
	if w.shellDepth > maxShellDepth {
		a.opaqueSrc(clip(script), "nested shells too deep")
		return
	}
	if !a.checkInput(script) {
		return
	}
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(script), "")
	parsers.Put(p)
	if err != nil {
		a.opaqueSrc(clip(script), "parse error: "+err.Error())
		return
	}
	if testHook != nil {
		testHook()
	}
	w.src = script
	w.stmts(f.Stmts, 0)
	w.finish()
}

// checkInput reports whether script is small and clean enough to parse,
// adding Opaque effects for what is not.
func (a *analyzer) checkInput(script string) bool {
	if len(script) > MaxScriptBytes {
		a.opaqueSrc(clip(script), "script too large")
		return false
	}
	if strings.IndexByte(script, 0) >= 0 {
		// The parser silently stops at a NUL byte.
		a.opaqueSrc(clip(script), "script contains a NUL byte")
		return false
	}
	if bad, what := unsafeText(script); bad {
		a.opaqueSrc(clip(script), "script contains "+what)
		return what != "invalid UTF-8"
	}
	return true
}
