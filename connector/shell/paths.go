package shell

import "strings"

// isSafeDevice reports files whose reading or writing has no effect worth
// asking about.
func isSafeDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty",
		"/dev/zero", "/dev/random", "/dev/urandom", "/dev/full":
		return true
	}
	if rest, ok := strings.CutPrefix(p, "/dev/fd/"); ok {
		return rest != "" && isIntegerText(rest)
	}
	return false
}

// pathEffect adds a Write or Read of word, relocated against the
// directory the script has cd'ed into.
func (w *walker) pathEffect(kind Kind, word Word, reason, src string) {
	if items, ok := w.loopItems(word, src); ok {
		for _, it := range items {
			w.pathEffect(kind, it, reason, src)
		}
		return
	}
	if !word.Dynamic && (word.Text == "" || isSafeDevice(word.Text)) {
		return
	}
	path, dyn := word.Text, word.Dynamic
	if !dyn || word.Glob {
		var unknown bool
		path, unknown = w.cwd.relocate(path)
		if unknown {
			// Not a plain path or glob any more: the policy cannot
			// resolve it against the start directory.
			path, dyn = "$PWD/"+path, true
			reason += " (relative to a directory changed by cd)"
		}
	}
	w.a.add(Effect{Kind: kind, Path: path, Dynamic: dyn, Reason: reason, Source: src})
}
