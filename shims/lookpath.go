package shims

import (
	"os"
	"path/filepath"
)

// lookReal finds the real tool: the first executable name on the PATH
// entries after the shim directory (all of PATH when the shim directory
// is not on it), skipping relative entries, every entry that is the shim
// directory (spelled differently, twice, or through a symbolic link), and
// any candidate that is this executable itself.
func (s *site) lookReal(name string, path []string) (string, error) {
	start := 0
	for i, dir := range path {
		if s.isShimDir(dir) {
			start = i + 1
			break
		}
	}
	for _, dir := range path[start:] {
		if !filepath.IsAbs(dir) || s.isShimDir(dir) {
			continue
		}
		if cand, ok := s.toolIn(dir, name); ok {
			return cand, nil
		}
	}
	return "", ErrNotFound
}

// toolIn returns the first of name's candidates in dir (one on Unix; one
// per PATHEXT extension on Windows) that is an executable file and not
// this executable.
func (s *site) toolIn(dir, name string) (string, bool) {
	for _, cand := range toolCandidates(dir, name) {
		fi, err := os.Stat(cand)
		if err != nil || !fi.Mode().IsRegular() || !executable(fi) {
			continue
		}
		if s.self != nil && os.SameFile(fi, s.self) {
			continue
		}
		return cand, true
	}
	return "", false
}

// isShimDir reports whether dir is the shim directory.
func (s *site) isShimDir(dir string) bool {
	if s.dir == "" || dir == "" {
		return false
	}
	if filepath.Clean(dir) == s.dir {
		return true
	}
	if s.dirFI == nil {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && os.SameFile(fi, s.dirFI)
}
