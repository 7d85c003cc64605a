//go:build linux

package jailinit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestMatchingDirs: the raw directory read finds the directories whose
// names match, as os.ReadDir and match do: not files, not links to
// directories, among many entries (more than one read's worth).
func TestMatchingDirs(t *testing.T) {
	root := t.TempDir()
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("clutter-%04d-%s", i, strings.Repeat("x", i%40))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"tmux-0", "tmux-1000", "screens", ".X11-unix", "ssh-abc", "emacs1000", "nvimXY", "pulse-1",
		"systemd-private-abc-foo", "tmux", "emacsx", "other", "sshd"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tmux-file", "ssh-file"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("tmux-0", filepath.Join(root, "tmux-link")); err != nil {
		t.Fatal(err)
	}
	np := newNamePatterns(tmpSocketDirs)
	var want []string
	list, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.IsDir() && np.match(e.Name()) {
			want = append(want, e.Name())
		}
	}
	got := matchingDirs(root, np)
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) != 9 {
		t.Errorf("matchingDirs = %q, want %q (9)", got, want)
	}
}
