package broker

import (
	"fmt"
	"path/filepath"
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
