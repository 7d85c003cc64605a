package shell

import "strings"

// cwdState is what the walker knows about the shell's working directory
// relative to the directory the script starts in. The zero value is the
// start directory.
type cwdState struct {
	dead    bool   // unreachable: the shell exited
	unknown bool   // a cd happened whose target is not known
	prefix  string // the literal directory cd'ed into ("" = start)
}

var unknownCwd = cwdState{unknown: true}

// merge is the state when either a or b may hold.
func merge(a, b cwdState) cwdState {
	switch {
	case a.dead:
		return b
	case b.dead:
		return a
	case a == b:
		return a
	}
	return unknownCwd
}

// cd returns the state after a successful cd to the literal dir.
func (c cwdState) cd(dir string) cwdState {
	if c.unknown || c.dead {
		return c
	}
	if !isRelative(dir) || c.prefix == "" {
		return cwdState{prefix: dir}
	}
	return cwdState{prefix: strings.TrimSuffix(c.prefix, "/") + "/" + dir}
}

// isRelative reports whether a path depends on the working directory.
func isRelative(p string) bool {
	if p == "" || p[0] == '/' || p[0] == '~' || p[0] == '\\' {
		return false
	}
	// C:\ and C:/ (Windows drive letters).
	return !(len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && isLetter(p[0]))
}

// relocate applies the working directory to a literal path: it returns
// the path as seen from the start directory and whether it is unknown.
func (c cwdState) relocate(p string) (string, bool) {
	if !isRelative(p) {
		return p, false
	}
	if c.unknown {
		return p, true
	}
	if c.prefix == "" {
		return p, false
	}
	return strings.TrimSuffix(c.prefix, "/") + "/" + p, false
}
