//go:build !windows

package broker

// DefaultPATH replaces the inherited PATH unless the pass-list says otherwise.
const DefaultPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// osPassList is what this OS adds to DefaultPassList.
var osPassList []string

// foldName is how variable names compare: exactly, on Unix.
func foldName(name string) string { return name }

// findGit is git on env's PATH.
func findGit(env []string) (string, error) { return lookPath("git", getenv(env, "PATH")) }
