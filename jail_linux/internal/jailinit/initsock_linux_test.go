//go:build linux

package jailinit

import (
	"path/filepath"
	"testing"
)

// TestNamePatterns: the prefix test in front of filepath.Match changes no
// answer.
func TestNamePatterns(t *testing.T) {
	names := []string{"tmux-0", "tmux-", "tmux", "screens", "uscreens", ".X11-unix", ".X11-unixx", "ssh-XYZ", "ssh",
		"emacs1000", "emacs", "emacsx", "nvimABC", "nvim", "pulse-PKdhtXMmr18n", "systemd-private-abc-foo", "go-build123", ""}
	for _, n := range names {
		want := false
		for _, p := range tmpSocketDirs {
			if ok, _ := filepath.Match(p, n); ok {
				want = true
			}
		}
		if got := newNamePatterns(tmpSocketDirs).match(n); got != want {
			t.Errorf("%q: %v, want %v", n, got, want)
		}
	}
}
