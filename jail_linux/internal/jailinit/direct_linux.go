//go:build linux

package jailinit

import (
	"os"
	"strconv"
	"strings"
)

// directCommand is the program to start instead of the shell Argv when
// the config names one (Config.Direct) and the shell would do nothing
// but start it, with the environment the shell would have given it. It
// checks what only the jail knows: the program is found on the jail's
// PATH, and the environment leaves the shell nothing of its own to do.
// Any doubt answers false, and the shell runs.
func directCommand(cfg *Config) (path string, argv, env []string, ok bool) {
	if len(cfg.Direct) == 0 || cfg.Direct[0] == "" {
		return "", nil, nil, false
	}
	name := cfg.Direct[0]
	for _, kv := range cfg.Env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "BASH_ENV", k == "ENV", k == "SHELLOPTS", k == "BASHOPTS", k == "EXECIGNORE",
			k == "BASH_FUNC_"+name+"%%", k == "BASH_FUNC_"+name+"()":
			return "", nil, nil, false // the shell would read or run something first
		}
	}
	if _, set := envLookup(cfg.Env, "PATH"); !set && !strings.Contains(name, "/") {
		return "", nil, nil, false // bash's own default PATH
	}
	path, err := lookPath(name, cfg.Env, cfg.Dir)
	if err != nil {
		return "", nil, nil, false // the shell says "command not found"
	}
	env, ok = shellChildEnv(cfg.Env, path, cfg.Dir)
	return path, cfg.Direct, env, ok
}

// shellChildEnv is env as `bash -c` passes it to the program it starts:
// SHLVL one up, _ the program's path, PWD the directory when the
// inherited one names another, OLDPWD dropped when it names no
// directory. ok is false for a SHLVL bash would read otherwise (signs,
// spaces, 1000 and up): the shell then runs.
func shellChildEnv(env []string, path, dir string) (out []string, ok bool) {
	out = make([]string, 0, len(env)+3)
	lvl := 0
	pwdOK := false
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "SHLVL":
			n, err := strconv.Atoi(v)
			if v != "" && (err != nil || n < 0 || n >= 999 || strconv.Itoa(n) != strings.TrimLeft(v, "0") && n != 0) {
				return nil, false
			}
			lvl = n
			continue
		case "_":
			continue
		case "PWD":
			if !samePlace(v, dir) {
				continue
			}
			pwdOK = true
		case "OLDPWD":
			if fi, err := os.Stat(v); err != nil || !fi.IsDir() {
				continue
			}
		}
		out = append(out, kv)
	}
	out = append(out, "SHLVL="+strconv.Itoa(lvl+1))
	if !pwdOK {
		out = append(out, "PWD="+dir)
	}
	return append(out, "_="+path), true
}

// samePlace reports whether the absolute path p names dir (bash keeps an
// inherited PWD that does, symbolic links and all).
func samePlace(p, dir string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	a, err := os.Stat(p)
	if err != nil {
		return false
	}
	b, err := os.Stat(dir)
	return err == nil && os.SameFile(a, b)
}
