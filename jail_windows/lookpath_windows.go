//go:build windows

package jail_windows

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lookPath finds name as the jail's shell would, on the PATH and PATHEXT
// of env: a name with a directory part is taken relative to dir, anything
// else is searched on each PATH entry (the shim directory, when the
// launcher sets one, comes first there). A name with an extension is
// tried as it is first; then with each PATHEXT extension in order.
// The current directory is not searched unless PATH names it.
func lookPath(name string, env []string, dir string) (string, error) {
	exts := PathExt(env)
	if strings.ContainsAny(name, `/\:`) {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if f, ok := FindExecutable(p, exts); ok {
			return f, nil
		}
		return "", fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	for _, d := range filepath.SplitList(EnvValue(env, "PATH")) {
		if d = strings.Trim(d, `"`); d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if f, ok := FindExecutable(filepath.Join(d, name), exts); ok {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotFound)
}

// FindExecutable tries p as it is when it has an extension, then p with
// each of exts (see PathExt), as CreateProcess and cmd.exe do. The broker
// uses it too.
func FindExecutable(p string, exts []string) (string, bool) {
	if filepath.Ext(p) != "" && isFile(p) {
		return p, true
	}
	for _, e := range exts {
		if isFile(p + e) {
			return p + e, true
		}
	}
	return "", false
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// PathExt is env's PATHEXT, lower-cased, each with its dot, only the
// extensions CreateProcess runs; Windows' own list when none is left.
func PathExt(env []string) []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(EnvValue(env, "PATHEXT")), ";") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		if runnable[e] {
			exts = append(exts, e)
		}
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

// runnable are the extensions CreateProcess runs (the other PATHEXT ones,
// .js, .ps1, ..., open through a file association).
var runnable = map[string]bool{".com": true, ".exe": true, ".bat": true, ".cmd": true}

// EnvValue is the last value of key in env; Windows compares names
// without case.
func EnvValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && strings.EqualFold(k, key) {
			return v
		}
	}
	return ""
}
