package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// writers are the two ways to replace a file, which differ only in their
// syncs.
var writers = map[string]func(string, []byte, os.FileMode) error{"WriteFile": WriteFile, "Replace": Replace}

func TestWriteFileReplacesAndLeavesNothing(t *testing.T) {
	for name, write := range writers {
		t.Run(name, func(t *testing.T) { testReplacesAndLeavesNothing(t, write) })
	}
}

func testReplacesAndLeavesNothing(t *testing.T, write func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, content := range []string{"one", "two, longer"} {
		if err := write(p, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if fi, _ := os.Stat(p); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %o", fi.Mode().Perm())
	}
}

func TestWriteFileReplacesSymlinkWithoutFollowing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) { testReplacesSymlink(t, write) })
	}
}

func testReplacesSymlink(t *testing.T, write func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Fatalf("the link's target was written: %q", got)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink != 0 {
		t.Fatal("the link was not replaced")
	}
}

func TestWriteFileFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}
