package policy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Bounds on expanding a glob the way the shell will.
const (
	maxGlobMatches = 256
	maxGlobScanned = 10000
)

var errGlobTooBroad = errors.New("the glob reaches too many files to check them")

// isPlainGlob reports a path that is dynamic only because of glob
// characters (*, ?, [...]): no expansion, quoting or brace is left in it,
// and no ".." (which the shell resolves through links, unlike a lexical
// glob). Such a path can be expanded now, as the shell will expand it.
func isPlainGlob(p string) bool {
	if !strings.ContainsAny(p, "*?[") || strings.ContainsAny(p, "$`\"'\\{}()<>|;&\n\t\x00") {
		return false
	}
	if strings.Contains(p[1:], "~") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return false
		}
	}
	return true
}

// expandGlob lists the existing paths the glob p (relative to dir)
// matches. Unlike bash, names starting with '.' match '*' too: checking
// more files fails closed. Zero matches means the shell passes the word
// as it is.
func (e *Engine) expandGlob(p, dir string) ([]string, error) {
	p, err := e.res.expandHome(p)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	vol := filepath.VolumeName(p)
	cur := []string{vol + string(filepath.Separator)}
	scanned := 0
	for _, seg := range splitComps(p[len(vol):]) {
		if !strings.ContainsAny(seg, "*?[") {
			for i := range cur {
				cur[i] = filepath.Join(cur[i], seg)
			}
			continue
		}
		seg = strings.Replace(seg, "[!", "[^", -1)
		if _, err := filepath.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("%w: unsupported glob %q", errBadPath, seg)
		}
		if cur, err = globDirs(cur, seg, &scanned); err != nil {
			return nil, err
		}
	}
	return existing(cur), nil
}

func globDirs(dirs []string, seg string, scanned *int) ([]string, error) {
	var next []string
	for _, d := range dirs {
		names, err := readNames(d, maxGlobScanned-*scanned)
		*scanned += len(names)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if ok, _ := filepath.Match(seg, n); ok {
				if next = append(next, filepath.Join(d, n)); len(next) > maxGlobMatches {
					return nil, errGlobTooBroad
				}
			}
		}
	}
	return next, nil
}

// readNames lists at most limit names of the directory d; a path that
// is not a readable directory has none.
func readNames(d string, limit int) ([]string, error) {
	f, err := os.Open(d)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	names, err := f.Readdirnames(limit + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil
	}
	if len(names) > limit {
		return nil, errGlobTooBroad
	}
	return names, nil
}

func existing(paths []string) []string {
	out := paths[:0]
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
