package policy

import (
	"math/bits"
	"path"
	"strings"
)

// maxPathSegments bounds a path pattern so its state set fits a uint64.
const maxPathSegments = 62

// anchor says what a path pattern is relative to.
type anchor uint8

const (
	anchorProject anchor = iota // relative: the project root
	anchorAbs                   // /etc/**, C:/Users/**
	anchorHome                  // ~/.ssh/**
)

// pathPattern is a parsed path glob, not yet bound to a root or home.
type pathPattern struct {
	anchor anchor
	segs   []string // "**" or a path.Match pattern for one name
}

// compilePath parses a path glob. Patterns use '/' on every OS. A pattern
// without a '/' (".env*") matches that name in any directory of the
// project, as in .gitignore; a trailing '/' means the directory and all
// below it; "**" is any number of directories, "*", "?" and "[...]" match
// within one name. ".." is refused: patterns name places, not walks.
func compilePath(pat string) (*pathPattern, error) {
	if pat == "" {
		return nil, errorf("empty path pattern")
	}
	if strings.ContainsAny(pat, "\x00\n\r") {
		return nil, errorf("control character in path pattern %q", pat)
	}
	p := &pathPattern{}
	rest := pat
	switch {
	case pat == "~" || strings.HasPrefix(pat, "~/"):
		p.anchor, rest = anchorHome, strings.TrimPrefix(pat[1:], "/")
	case strings.HasPrefix(pat, "~"):
		return nil, errorf("~user is not supported in %q", pat)
	case strings.HasPrefix(pat, "/"):
		p.anchor = anchorAbs
	case isDrivePattern(pat):
		p.anchor = anchorAbs
	case !strings.Contains(strings.TrimSuffix(pat, "/"), "/"):
		rest = "**/" + pat
	}
	if strings.HasSuffix(rest, "/") {
		rest += "**"
	}
	return p, p.setSegments(pat, rest)
}

func (p *pathPattern) setSegments(pat, rest string) error {
	for _, s := range strings.Split(rest, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return errorf("\"..\" in path pattern %q", pat)
		}
		if s != "**" {
			if _, err := path.Match(s, ""); err != nil {
				return errorf("bad glob %q in %q", s, pat)
			}
		}
		p.segs = append(p.segs, s)
	}
	if len(p.segs) > maxPathSegments {
		return errorf("path pattern %q has more than %d names", pat, maxPathSegments)
	}
	return nil
}

// isDrivePattern reports a Windows drive pattern such as C:/Users/**.
func isDrivePattern(p string) bool {
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		(p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// boundPath is a path pattern bound to absolute segments: a literal
// prefix (the project root or home, compared by equality, never as a
// glob) followed by the pattern's segments. Both spellings are kept: as
// written, and folded for case-insensitive comparison.
type boundPath struct {
	prefix, prefixFold []string
	segs, segsFold     []string
	rest               uint64 // bit i set when segs[i] is "**"
	// below, when set, is a directory a path inside which is matched
	// by its part below it only (the self-protection rule's project
	// root: an agent's worktree lies inside MAIN's .sandbox/)
	below, belowFold []string
}

func (p *pathPattern) bind(root, home []string) *boundPath {
	b := &boundPath{segs: p.segs}
	switch p.anchor {
	case anchorProject:
		b.prefix = root
	case anchorHome:
		b.prefix = home
	}
	for _, s := range b.prefix {
		b.prefixFold = append(b.prefixFold, foldName(s))
	}
	for i, s := range p.segs {
		b.segsFold = append(b.segsFold, foldName(s))
		if s == "**" {
			b.rest |= 1 << i
		}
	}
	return b
}

// match reports whether the absolute path, given as its segments (and
// their folded forms), matches. fold selects case-insensitive comparison.
func (b *boundPath) match(segs, folded []string, fold bool) bool {
	prefix, pats, below := b.prefix, b.segs, b.below
	if fold {
		prefix, pats, segs, below = b.prefixFold, b.segsFold, folded, b.belowFold
	}
	if len(below) > 0 && within(segs, below) {
		segs = segs[len(below):]
	}
	if len(segs) < len(prefix) {
		return false
	}
	for i, s := range prefix {
		if segs[i] != s {
			return false
		}
	}
	set := b.closure(1)
	for _, s := range segs[len(prefix):] {
		set = b.step(set, pats, s)
		if set == 0 {
			return false
		}
	}
	return set&(1<<len(pats)) != 0
}

func (b *boundPath) step(set uint64, pats []string, name string) uint64 {
	var next uint64
	for set != 0 {
		i := bits.TrailingZeros64(set)
		set &^= 1 << i
		switch {
		case i >= len(pats):
		case b.rest&(1<<i) != 0:
			next |= 1 << i
		default:
			if ok, _ := path.Match(pats[i], name); ok {
				next |= 1 << (i + 1)
			}
		}
	}
	return b.closure(next)
}

func (b *boundPath) closure(set uint64) uint64 {
	for r := b.rest; r != 0; r &= r - 1 {
		if i := bits.TrailingZeros64(r); set&(1<<i) != 0 {
			set |= 1 << (i + 1)
		}
	}
	return set
}
