//go:build linux

package jailinit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// errNotFound is lookPath's error for a command that is on no PATH entry.
var errNotFound = errors.New("command not found on the jail's PATH")

// lookPath finds name as the jail's shell would: a name with a slash is
// taken as is (relative to dir), anything else is searched on the PATH of
// env. The shim directory, when the launcher sets one, comes first there.
func lookPath(name string, env []string, dir string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !path.IsAbs(p) {
			p = path.Join(dir, p)
		}
		return p, executable(p)
	}
	for _, d := range splitList(envValue(env, "PATH")) {
		if d == "" {
			d = "."
		}
		if !path.IsAbs(d) {
			d = path.Join(dir, d)
		}
		p := path.Join(d, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, errNotFound)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return &fs.PathError{Op: "exec", Path: p, Err: unix.EISDIR}
	}
	return unix.Access(p, unix.X_OK)
}

func envValue(env []string, key string) string {
	v, _ := envLookup(env, key)
	return v
}

// envLookup is key's value in env (the last one wins) and whether it is
// set at all.
func envLookup(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
