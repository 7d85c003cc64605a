//go:build windows

package testenv

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/windows"
)

// TempDir is a new directory that the test's clean-up removes. Under
// Wine, t.TempDir's clean-up fails (Wine lacks the POSIX-style delete that
// os.RemoveAll uses), so the clean-up falls back on DeleteFile and
// RemoveDirectory; what it cannot remove is logged, not failed.
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	t.Cleanup(func() {
		if err := removeAll(dir); err != nil {
			t.Logf("temp dir %s left behind: %v", dir, err)
		}
	})
	return dir
}

// removeAll is os.RemoveAll with the fallback that works under Wine.
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	var files, dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
		case d.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
		return nil
	})
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, f := range files {
		p, _ := windows.UTF16PtrFromString(f)
		windows.SetFileAttributes(p, windows.FILE_ATTRIBUTE_NORMAL)
		if err := windows.DeleteFile(p); err != nil && windows.RemoveDirectory(p) != nil { // a link to a directory
			keep(&fs.PathError{Op: "DeleteFile", Path: f, Err: err})
		}
	}
	slices.Reverse(dirs) // children first
	for _, d := range dirs {
		p, _ := windows.UTF16PtrFromString(d)
		if err := windows.RemoveDirectory(p); err != nil {
			keep(&fs.PathError{Op: "RemoveDirectory", Path: d, Err: err})
		}
	}
	return first
}
