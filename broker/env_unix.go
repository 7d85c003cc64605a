//go:build !windows

package broker

import (
	"os"
	"path/filepath"
	"strings"
)

// DefaultPATH replaces the inherited PATH unless the pass-list says otherwise.
const DefaultPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// osPassList is what this OS adds to DefaultPassList.
var osPassList []string

// foldName is how variable names compare: exactly, on Unix.
func foldName(name string) string { return name }

// findGit is git on env's PATH.
func findGit(env []string) (string, error) { return lookPath("git", getenv(env, "PATH")) }

// trustedPATH is the PATH an approved command gets when the pass-list
// keeps the default: the approver's own PATH (where the human's
// toolchains are: /usr/local/go/bin, ~/.cargo/bin, ...) minus every
// entry the agent could plant a program in — relative ones, the project
// root and below, the temp dirs, directories anyone may write — then
// DefaultPATH's entries it lacks.
func trustedPATH(cur, root string) string {
	var out []string
	seen := map[string]bool{}
	add := func(dir string) {
		if !seen[dir] {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	for _, dir := range filepath.SplitList(cur) {
		if plantable(dir, root) {
			continue
		}
		add(filepath.Clean(dir))
	}
	for _, dir := range filepath.SplitList(DefaultPATH) {
		add(dir)
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// plantable reports a PATH entry the agent may be able to write into.
func plantable(dir, root string) bool {
	if !filepath.IsAbs(dir) {
		return true
	}
	dir = filepath.Clean(dir)
	for _, d := range []string{root, "/tmp", "/var/tmp", filepath.Clean(os.TempDir()), "/dev/shm"} {
		if d != "" && (dir == d || strings.HasPrefix(dir, d+"/")) {
			return true
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return true
	}
	if real, err := filepath.EvalSymlinks(dir); err != nil || (root != "" && (real == root || strings.HasPrefix(real, root+"/"))) {
		return true
	}
	return fi.Mode().Perm()&0o002 != 0
}
