//go:build windows

package broker

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/jail_windows"
)

// lookPath finds name on the PATH of env, the request's scrubbed
// environment, never on the broker's own PATH (as on Unix). A name with a
// directory or drive part is used as is, except that an absolute one
// without its extension gets it as below. PATH entries that are not
// absolute are skipped (they would mean the working directory). In each
// entry, name itself is tried when it has an extension, then name with
// each extension of env's PATHEXT that CreateProcess runs (the rules of
// jail_windows, which starts programs the same way).
func lookPath(name string, env []string) (string, error) {
	exts := jail_windows.PathExt(env)
	if strings.ContainsAny(name, `/\:`) {
		if !filepath.IsAbs(name) {
			return name, nil
		}
		if p, ok := jail_windows.FindExecutable(name, exts); ok {
			return p, nil
		}
		return "", fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	pathList := jail_windows.EnvValue(env, "PATH")
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p, ok := jail_windows.FindExecutable(filepath.Join(dir, name), exts); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q on PATH %q", ErrNotFound, name, pathList)
}
