//go:build !linux

package broker

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// workDir resolves the working directory and checks that it lies inside
// root. Without /proc the child gets the resolved path, so a swap between
// the check and the child's chdir is possible (Linux closes that window).
func workDir(root, dir string) (path string, release func(), err error) {
	rootReal, err := realRoot(root)
	if err != nil {
		return "", nil, err
	}
	want := dirArg(rootReal, dir)
	real, err := filepath.EvalSymlinks(want)
	if err != nil {
		return "", nil, fmt.Errorf("%w: %s: %w", ErrCwd, want, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", nil, fmt.Errorf("%w: %s: not a directory", ErrCwd, want)
	}
	if !folder.Within(rootReal, real) {
		return "", nil, fmt.Errorf("%w: %s resolves to %s, outside the project %s", ErrCwd, want, real, rootReal)
	}
	return real, func() {}, nil
}
