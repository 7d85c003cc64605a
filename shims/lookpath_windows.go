//go:build windows

package shims

import (
	"os"
	"path/filepath"
	"strings"
)

// toolCandidates are the files that may be the tool name in dir, in the
// order cmd.exe tries them: name with each PATHEXT extension (npm is
// npm.cmd, git is git.exe), or name itself first when it already has an
// extension.
func toolCandidates(dir, name string) []string {
	base := filepath.Join(dir, name)
	var c []string
	if filepath.Ext(name) != "" {
		c = append(c, base)
	}
	for _, e := range pathExt() {
		c = append(c, base+e)
	}
	return c
}

// pathExt is $PATHEXT, lower-cased, each with its dot, only the
// extensions CreateProcess runs; Windows' own list when none is left.
func pathExt() []string {
	var exts []string
	for _, e := range strings.Split(strings.ToLower(os.Getenv("PATHEXT")), ";") {
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
