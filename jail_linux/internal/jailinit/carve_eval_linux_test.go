//go:build linux

package jailinit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEvalSymlinks: our evalSymlinks answers as filepath.EvalSymlinks
// does, on absolute paths through absolute, relative, chained, dangling
// and looping links, dot-dot after a link, and a file used as a directory.
func TestEvalSymlinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b/c", "x/y"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a/file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"abs":      filepath.Join(root, "a/b"),
		"rel":      "a/b/c",
		"chain":    "rel",
		"up":       "x/y/../../a",
		"a/b/back": "../../x",
		"dangling": "nowhere",
		"loop1":    "loop2",
		"loop2":    "loop1",
		"tofile":   "a/file",
		"x/root":   "/",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []string{"", "a", "a/b/c", "abs", "abs/c", "abs/../b", "rel/", "chain/..", "chain/./..", "up/b",
		"a/b/back/y", "a/b/back/../a", "dangling", "dangling/x", "loop1", "tofile", "tofile/x", "a/file/",
		"x/root" + root, "x/root/..", "missing/x", "a//b///c/", "abs/c/../../../x"}
	for _, c := range cases {
		p := root + "/" + c
		want, werr := filepath.EvalSymlinks(p)
		got, gerr := evalSymlinks(p)
		if got != want || (werr == nil) != (gerr == nil) {
			t.Errorf("%s: %q, %v; filepath says %q, %v", c, got, gerr, want, werr)
		}
	}
	if got := splitList(""); got == nil || len(got) != 0 {
		t.Errorf("splitList(\"\") = %#v", got)
	}
	for _, l := range []string{"/bin", "/bin:/usr/bin", ":/bin:", "::"} {
		if got, want := splitList(l), filepath.SplitList(l); !slices.Equal(got, want) {
			t.Errorf("splitList(%q) = %q, want %q", l, got, want)
		}
	}
}
