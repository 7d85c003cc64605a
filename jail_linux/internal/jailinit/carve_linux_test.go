//go:build linux

package jailinit

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

func TestCarve(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/b/hidden", "a/b/keep", "a/c", "d"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	os.WriteFile(filepath.Join(root, "a/b/file"), nil, 0o644)
	os.Symlink("/etc", filepath.Join(root, "a/b/link"))
	tests := []struct {
		name   string
		deny   []string
		onPath uint64
		want   []string // granted with access, relative
		path   []string // granted with onPath only
	}{
		{"nothing denied", nil, 0, []string{"."}, nil},
		{"root denied", []string{root}, 0, nil, nil},
		{"outside denied", []string{"/elsewhere"}, 0, []string{"."}, nil},
		{"deep denial", []string{filepath.Join(root, "a/b/hidden")}, 0,
			[]string{"a/b/file", "a/b/keep", "a/c", "d"}, nil},
		{"deep denial keeps listing", []string{filepath.Join(root, "a/b/hidden")}, 1,
			[]string{"a/b/file", "a/b/keep", "a/c", "d"}, []string{".", "a", "a/b"}},
		{"file denied", []string{filepath.Join(root, "a/b/file")}, 0,
			[]string{"a/b/hidden", "a/b/keep", "a/c", "d"}, nil},
		{"file and directory denied", []string{filepath.Join(root, "a/b/file"), filepath.Join(root, "a/c")}, 0,
			[]string{"a/b/hidden", "a/b/keep", "d"}, nil},
		{"prefix is not containment", []string{filepath.Join(root, "a/b/kee")}, 0,
			[]string{"a/b/file", "a/b/hidden", "a/b/keep", "a/c", "d"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g grants
			g.carve(root, tc.deny, rRead|rWrite, tc.onPath)
			var full, path []string
			for _, gr := range g {
				rel, _ := filepath.Rel(root, gr.path)
				if gr.access == tc.onPath && tc.onPath != 0 {
					path = append(path, rel)
				} else {
					full = append(full, rel)
				}
				if !gr.dir && gr.access&^rFile != 0 {
					t.Errorf("file %s granted directory rights %#x", rel, gr.access)
				}
			}
			sort.Strings(full)
			sort.Strings(path)
			if !slices.Equal(full, tc.want) || !slices.Equal(path, tc.path) {
				t.Errorf("granted %v, on path %v; want %v, %v", full, path, tc.want, tc.path)
			}
		})
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "data"), nil, 0o644)
	env := []string{"PATH=/nonexistent:" + bin}
	tests := []struct {
		name, cmd, want string
		wantErr         bool
	}{
		{"on PATH", "tool", filepath.Join(bin, "tool"), false},
		{"not executable", "data", "", true},
		{"missing", "nope", "", true},
		{"relative path", "bin/tool", filepath.Join(dir, "bin/tool"), false},
		{"absolute path", "/bin/sh", "/bin/sh", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lookPath(tc.cmd, env, dir)
			if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
				t.Errorf("lookPath(%q) = %q, %v", tc.cmd, got, err)
			}
		})
	}
}
