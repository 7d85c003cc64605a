package broker

import (
	"os"
	"path"
	"strings"
)

// DefaultPassList is the environment a broker-run command gets by default.
// Entries are a name ("HOME"), a pattern with * ("LC_*", matched with
// path.Match), or NAME=VALUE, which sets that value whatever the input says.
// PATH is never inherited by default: it is reset to DefaultPATH. A policy
// that wants the inherited PATH lists "PATH" instead.
//
// SSH_AUTH_SOCK passes so that an approved `git push` over ssh can use the
// human's agent; the command was approved, and the socket grants nothing
// the human did not approve.
var DefaultPassList = append([]string{
	"PATH=" + DefaultPATH,
	"HOME", "USER", "LOGNAME",
	"LANG", "LANGUAGE", "LC_*",
	"TERM", "TZ", "TMPDIR",
	"SSH_AUTH_SOCK",
}, osPassList...)

// NeverPass are inherited variables that no pass-list entry lets through,
// not even an exact name: they change what a shell, the dynamic loader, git
// or an interpreter does before the approved command runs. A NAME=VALUE
// entry (a value the human put in the policy) is still honoured.
var NeverPass = []string{
	"LD_*", "DYLD_*", "BASH_ENV", "ENV", "BASH_FUNC_*", "SHELLOPTS",
	"BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH", "GLOBIGNORE",
	"GIT_*", "PAGER", "GIT_PAGER", "EDITOR", "VISUAL",
	"PYTHON*", "NODE_OPTIONS", "NODE_PATH", "PERL5*", "PERLLIB",
	"RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
}

// Scrub returns the part of env that passList lets through (DefaultPassList
// when passList is nil), in env's order, one value per name (the last one
// wins), followed by the pass-list's fixed NAME=VALUE entries. Malformed
// entries and anything matching NeverPass are dropped.
func Scrub(env []string, passList []string) []string {
	if passList == nil {
		passList = DefaultPassList
	}
	fixed, names := splitPassList(passList)
	var out []string
	seen := map[string]int{}
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !matchAny(names, name) || matchAny(NeverPass, name) {
			continue
		}
		if _, dup := fixed[name]; dup {
			continue
		}
		if i, dup := seen[name]; dup {
			out[i] = kv
			continue
		}
		seen[name] = len(out)
		out = append(out, kv)
	}
	for _, e := range passList {
		if name, _, ok := strings.Cut(e, "="); ok && fixed[name] == e {
			out = append(out, e)
			delete(fixed, name)
		}
	}
	return out
}

// splitPassList separates fixed NAME=VALUE entries (the last per name wins)
// from names and patterns.
func splitPassList(passList []string) (fixed map[string]string, names []string) {
	fixed = map[string]string{}
	for _, e := range passList {
		if name, _, ok := strings.Cut(e, "="); ok {
			if name != "" {
				fixed[name] = e
			}
			continue
		}
		names = append(names, e)
	}
	return fixed, names
}

func matchAny(patterns []string, name string) bool {
	name = foldName(name)
	for _, p := range patterns {
		if ok, err := path.Match(foldName(p), name); err == nil && ok {
			return true
		}
	}
	return false
}

// getenv returns the last value of name in env.
func getenv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

func environ() []string { return os.Environ() }

// withPATH is env with every PATH entry replaced by one holding path.
func withPATH(env []string, path string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+path)
}
