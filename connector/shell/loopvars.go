package shell

// `for f in src/*.go; do wc -l < "$f"; done` reads one of the loop's items
// each time: a file the glob matches. Read as an unknown value, "$f" made
// every such loop escalate. When a for loop's items are all literal words
// or plain globs, a quoted "$f" (or "${f}") that a file operand or a
// redirection names stands for those items, decided one by one as if
// written there. It holds only while the loop is the variable's one
// assignment in the script (checked when the walk ends, like the
// integer variables of arithmetic): another assignment, a read or a
// second loop of it escalates. A use before the loop is not touched (the
// walk meets it first: it is the environment's value, unknown). Unquoted,
// $f would be split and globbed again (a file named "x /etc/shadow"), so
// it stays unknown.

// recordLoop notes the items of `for name in items`, or forgets name when
// an item is of unknown value.
func (w *walker) recordLoop(name string, items []Word) {
	for _, it := range items {
		if it.Dynamic && !it.Glob {
			delete(w.vars.loops, name)
			return
		}
	}
	if w.vars.loops == nil {
		w.vars.loops = map[string][]Word{}
	}
	w.vars.loops[name] = items
}

// loopItems returns the items a quoted "$name" path stands for.
func (w *walker) loopItems(word Word, src string) ([]Word, bool) {
	if !word.Dynamic || word.Glob {
		return nil, false
	}
	name, ok := quotedVarRef(word.Text)
	if !ok {
		return nil, false
	}
	items, ok := w.vars.loops[name]
	if !ok {
		return nil, false
	}
	w.vars.loopUses = append(w.vars.loopUses, optRef{name: name, what: word.Text, src: src})
	return items, true
}

// finishLoops escalates the uses whose variable the script also set some
// other way.
func (w *walker) finishLoops() {
	for _, u := range w.vars.loopUses {
		if v := w.vars.vars[u.name]; v == nil || v.assigns != 1 {
			w.a.opaqueSrc(u.src, u.what+" is a loop's item, but the script also sets it otherwise")
		}
	}
}
