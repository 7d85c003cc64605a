//go:build windows

package broker

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lookPath finds name on the PATH of env, the request's scrubbed
// environment, never on the broker's own PATH (as on Unix). A name with a
// directory or drive part is used as is, except that an absolute one
// without its extension gets it as below. PATH entries that are not
// absolute are skipped (they would mean the working directory). In each
// entry, name itself is tried when it has an extension, then name with
// each extension of env's PATHEXT that CreateProcess runs.
func lookPath(name string, env []string) (string, error) {
	exts := pathExt(envValue(env, "PATHEXT"))
	if strings.ContainsAny(name, `/\:`) {
		if !filepath.IsAbs(name) {
			return name, nil
		}
		if p, ok := findExecutable(name, exts); ok {
			return p, nil
		}
		return "", fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	pathList := envValue(env, "PATH")
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue
		}
		if p, ok := findExecutable(filepath.Join(dir, name), exts); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q on PATH %q", ErrNotFound, name, pathList)
}

// findExecutable tries p as it is when it has an extension, then p with
// each of exts.
func findExecutable(p string, exts []string) (string, bool) {
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

// pathExt is the PATHEXT list v, lower-cased, each with its dot, keeping
// only the extensions CreateProcess runs; Windows' own list when none is
// left.
func pathExt(v string) []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(v), ";") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		switch e {
		case ".com", ".exe", ".bat", ".cmd":
			exts = append(exts, e)
		}
	}
	if len(exts) == 0 {
		exts = []string{".com", ".exe", ".bat", ".cmd"}
	}
	return exts
}

// envValue is the last value of key in env; Windows compares names
// without case.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && strings.EqualFold(k, key) {
			return v
		}
	}
	return ""
}
