//go:build linux

package jailinit

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckWritable: a writable path through a link whose directory a
// jail can write is refused; a link in a directory no jail writes is
// followed.
func TestCheckWritable(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(base, "project")
	system := filepath.Join(base, "system")
	for _, d := range []string{filepath.Join(project, "work"), filepath.Join(system, "real"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustLink(t, filepath.Join(base, "outside"), filepath.Join(project, "work", "tmp"))
	mustLink(t, filepath.Join(system, "real"), filepath.Join(system, "alias"))
	tests := []struct {
		name     string
		writable []string
		scratch  []string
		planted  bool
	}{
		{"link in a writable tree", []string{project, filepath.Join(project, "work", "tmp")}, nil, true},
		{"link in a shared scratch dir", []string{filepath.Join(project, "work", "tmp")}, []string{base}, true},
		{"link in a directory no jail writes", []string{filepath.Join(system, "alias")}, nil, false},
		{"no link", []string{project}, nil, false},
		{"missing", []string{filepath.Join(project, "none", "x")}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkWritableIn(tc.writable, tc.scratch)
			if got := errors.Is(err, ErrSpec); got != tc.planted {
				t.Errorf("CheckWritable(%v) = %v, want refused=%v", tc.writable, err, tc.planted)
			}
		})
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
