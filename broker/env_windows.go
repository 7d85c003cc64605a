//go:build windows

package broker

import (
	"os"
	"strings"
)

// DefaultPATH replaces the inherited PATH unless the pass-list says
// otherwise: the system directories only.
var DefaultPATH = func() string {
	root := os.Getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	return root + `\System32;` + root + `;` + root + `\System32\Wbem;` + root + `\System32\WindowsPowerShell\v1.0`
}()

// osPassList is what Windows programs need to start at all (SystemRoot,
// PATHEXT, COMSPEC) and to find the user's folders.
var osPassList = []string{
	"SystemRoot", "SystemDrive", "windir", "PATHEXT", "COMSPEC",
	"USERNAME", "USERPROFILE", "HOMEDRIVE", "HOMEPATH",
	"APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
	"NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE",
}

// foldName is how variable names compare: case-insensitively on Windows,
// where Path and PATH are one variable.
func foldName(name string) string { return strings.ToUpper(name) }

// findGit is git on env's PATH.
func findGit(env []string) (string, error) { return lookPath("git", env) }

// trustedPATH keeps DefaultPATH on Windows.
func trustedPATH(cur, root string) string { return DefaultPATH }
