package broker

import (
	"fmt"
	"path/filepath"
	"strings"
)

// dirArg returns the absolute, cleaned directory that dir names (default
// root; relative to root).
func dirArg(root, dir string) string {
	if dir == "" {
		return filepath.Clean(root)
	}
	if !filepath.IsAbs(dir) {
		return filepath.Join(root, dir)
	}
	return filepath.Clean(dir)
}

// realRoot resolves the project root (trusted: it comes from the approver).
func realRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("%w: root %s: %w", ErrCwd, root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%w: root %s: %w", ErrCwd, root, err)
	}
	return real, nil
}

// within reports whether p is root or below it. Both must be clean,
// absolute and already resolved; the test is on path components, never a
// string prefix.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
