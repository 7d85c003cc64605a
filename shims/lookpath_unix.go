//go:build unix

package shims

import "path/filepath"

// toolCandidates are the files that may be the tool name in dir.
func toolCandidates(dir, name string) []string { return []string{filepath.Join(dir, name)} }
