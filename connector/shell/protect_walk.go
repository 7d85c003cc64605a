package shell

import (
	"path"
	"strings"
)

// protect adds a Protected effect when the word can reach a protected
// name after expansion.
func (w *walker) protect(v *wordVal) {
	for _, name := range w.a.opts.Protected {
		if lit, ok := v.literal(); ok && w.a.opts.Root != "" {
			if rel, in := belowRoot(lit, w.a.opts.Root); in {
				if literalReaches(rel, name) {
					w.a.add(Effect{Kind: Protected, Path: lit, Reason: "word can reach the protected name " + name, Source: v.src})
					return
				}
				continue
			}
		}
		if v.reaches(name) {
			w.a.add(Effect{Kind: Protected, Path: v.display(), Dynamic: v.dynamic,
				Reason: "word can reach the protected name " + name, Source: v.src})
			return
		}
	}
}

// belowRoot returns the part of an absolute literal path below root, once
// the path is made clean (so that root/../x is not inside root), and
// whether it lies in root at all. Case is compared as is: a path that
// differs only in case is checked whole.
func belowRoot(lit, root string) (string, bool) {
	if !strings.HasPrefix(lit, "/") || strings.Contains(lit, `\`) {
		return "", false
	}
	clean := path.Clean(lit)
	switch {
	case clean == root:
		return "", true
	case strings.HasPrefix(clean, root+"/"):
		return clean[len(root)+1:], true
	}
	return "", false
}

// display is the literal value of a word, or its source.
func (v *wordVal) display() string {
	if lit, ok := v.literal(); ok {
		return lit
	}
	return v.src
}

func (v *wordVal) reaches(name string) bool {
	if name == "" {
		return false
	}
	if lit, ok := v.literal(); ok {
		return literalReaches(lit, name)
	}
	runes := []rune(name)
	for _, alt := range v.alts {
		if altReaches(shellVisible(alt, name), name, runes) {
			return true
		}
	}
	return false
}

// shellVisible drops, for a dot-name, the components that bash's own
// pathname expansion can never match to it: bash never matches a leading
// dot with *, ? or a bracket expression (dotglob would change that, but
// setting it needs shopt, BASHOPTS or GLOBIGNORE, all of which escalate).
// So `ls *` does not reach .sandbox while `ls .s*` does. Programs that
// expand patterns themselves (find -name, rg -g) go through MayReach,
// which keeps the strict rule.
func shellVisible(alt []seg, name string) []seg {
	if !strings.HasPrefix(name, ".") {
		return alt
	}
	var out []seg
	for _, comp := range components(alt) {
		if len(comp) > 0 && hidesLeadingDot(comp[0]) {
			comp = []seg{{kind: segLit, text: "/"}} // a separator: matches nothing
		}
		if len(out) > 0 {
			out = append(out, seg{kind: segLit, text: "/"})
		}
		out = append(out, comp...)
	}
	return out
}

// hidesLeadingDot reports whether a component starting with s cannot
// match a name that starts with a dot in bash's pathname expansion.
func hidesLeadingDot(s seg) bool {
	switch s.kind {
	case segQuest, segClass:
		return true
	case segStar:
		return s.ext == ""
	}
	return false
}

// literalReaches reports whether a literal path (no globs) has a component
// that names name, allowing for case and Windows forms.
func literalReaches(text, name string) bool {
	for {
		i := strings.IndexAny(text, `/\`)
		comp := text
		if i >= 0 {
			comp = text[:i]
		}
		if literalComponentIs(comp, name) {
			return true
		}
		if i < 0 {
			return false
		}
		text = text[i+1:]
	}
}

func literalComponentIs(comp, name string) bool {
	if len(comp) < len(name) && !strings.Contains(comp, "~") {
		return false
	}
	if k := strings.IndexByte(comp, ':'); k >= 0 && literalComponentIs(comp[:k], name) {
		return true
	}
	if strings.EqualFold(comp, name) || strings.EqualFold(strings.TrimRight(comp, ". "), name) {
		return true
	}
	return shortNameIs(comp, name)
}

// protectText checks a literal string that a program receives (an argv
// element run without a shell, a decoded printf argument).
func (w *walker) protectText(text, src string) {
	for _, name := range w.a.opts.Protected {
		if name != "" && literalReaches(text, name) {
			w.a.add(Effect{Kind: Protected, Path: clip(text), Reason: "argument names the protected name " + name, Source: src})
			return
		}
	}
}

// protectGlob checks a literal that a program expands as a glob itself
// (find -name, git pathspecs, rg -g, ...): only a pattern aimed at a
// protected name is one (MayTarget says why).
func (w *walker) protectGlob(text, src string) {
	for _, name := range w.a.opts.Protected {
		if MayTarget(text, name) && !literalReaches(text, name) {
			w.a.add(Effect{Kind: Protected, Path: clip(text), Reason: "pattern can match the protected name " + name, Source: src})
			return
		}
	}
}

// protectRegex is protectGlob for find's -regex and -iregex.
func (w *walker) protectRegex(text, src string, emacs, fold bool) {
	for _, name := range w.a.opts.Protected {
		if RegexMayTarget(text, name, emacs, fold) && !literalReaches(text, name) {
			w.a.add(Effect{Kind: Protected, Path: clip(text), Reason: "pattern can match the protected name " + name, Source: src})
			return
		}
	}
}
