package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// maxLinks bounds symlink resolution, like the kernel's ELOOP limit.
const maxLinks = 40

// errBadPath is why a path cannot be decided on; it always escalates.
var errBadPath = errors.New("path cannot be resolved")

// resolver turns a path as an agent wrote it into the absolute path the
// OS would open: relative to a working directory, "~" expanded, Windows
// forms normalised, ".." and symlinks resolved component by component on
// the longest existing prefix (a dangling link is followed to where it
// points, since writing through it creates that file).
type resolver struct {
	root    string // resolved project root: walks below it start there
	home    string // resolved home directory, "" when unknown
	windows bool   // apply Windows path forms
	// longName expands 8.3 short names of an existing path (Windows).
	longName func(string) (string, error)
}

func newResolver(root, home string) *resolver {
	return &resolver{root: root, home: home, windows: runtime.GOOS == "windows", longName: longPathName}
}

// resolve returns the absolute resolved form of p, relative to cwd (an
// absolute, already resolved directory).
func (r *resolver) resolve(p, cwd string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: empty or contains NUL", errBadPath)
	}
	p, err := r.expandHome(p)
	if err != nil {
		return "", err
	}
	if r.windows {
		if p, err = normalizeWindows(p, filepath.VolumeName(cwd)); err != nil {
			return "", err
		}
	}
	if !filepath.IsAbs(p) {
		p = cwd + string(filepath.Separator) + p
	}
	abs, err := r.walk(p)
	if err != nil {
		return "", err
	}
	if r.windows && r.longName != nil {
		return expandShortNames(abs, r.longName), nil
	}
	return abs, nil
}

func (r *resolver) expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, `~\`) {
		if strings.HasPrefix(p, "~") {
			return "", fmt.Errorf("%w: ~user paths are not resolved", errBadPath)
		}
		return p, nil
	}
	if r.home == "" {
		return "", fmt.Errorf("%w: home directory unknown", errBadPath)
	}
	return r.home + p[1:], nil
}

// walk is walkLinks, started at the project root (already resolved) when
// p is written below it: that saves a look-up per name of the root.
func (r *resolver) walk(p string) (string, error) {
	sep := string(filepath.Separator)
	switch {
	case r.root == "" || !strings.HasPrefix(p, r.root):
	case len(p) == len(r.root):
		return r.root, nil
	case strings.HasPrefix(p[len(r.root):], sep):
		return walkFrom(r.root, splitComps(p[len(r.root):]))
	}
	return walkLinks(p)
}

// walkLinks resolves ".." and symlinks in the absolute path p one
// component at a time. Once a component does not exist, the rest is
// appended lexically: nothing below a missing name can be a link.
func walkLinks(p string) (string, error) {
	vol := filepath.VolumeName(p)
	return walkFrom(vol+string(filepath.Separator), splitComps(p[len(vol):]))
}

// walkFrom resolves the names comps starting in the resolved directory cur.
func walkFrom(cur string, comps []string) (string, error) {
	for links := 0; len(comps) > 0; {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if isMissing(err) {
			return filepath.Join(append([]string{next}, comps...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("%w: %w", errBadPath, err)
		}
		if !linkLike(next, fi) {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%w: too many symbolic links at %s", errBadPath, next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%w: %w", errBadPath, err)
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			cur, target = v+string(filepath.Separator), target[len(v):]
		}
		comps = append(splitComps(target), comps...)
	}
	return cur, nil
}

func isMissing(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, fs.ErrNotExist) || isNotDir(err)
}

func splitComps(p string) []string {
	f := func(r rune) bool { return r == '/' || r == filepath.Separator }
	return strings.FieldsFunc(p, f)
}

// pathSegments splits an absolute path into the names compared against
// path patterns: the volume ("C:", "//server/share") first when there is
// one, then each name.
func pathSegments(abs string) []string {
	s := filepath.ToSlash(abs)
	vol := filepath.ToSlash(filepath.VolumeName(abs))
	segs := make([]string, 0, 8)
	if vol != "" {
		segs = append(segs, vol)
		s = s[len(vol):]
	}
	for _, x := range strings.Split(s, "/") {
		if x != "" {
			segs = append(segs, x)
		}
	}
	return segs
}

func foldSegments(segs []string) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = foldName(s)
	}
	return out
}

// within reports whether segs names prefix or something below it. It
// compares whole names, so /proj-evil is never inside /proj.
func within(segs, prefix []string) bool {
	if len(segs) < len(prefix) {
		return false
	}
	for i, s := range prefix {
		if segs[i] != s {
			return false
		}
	}
	return true
}
