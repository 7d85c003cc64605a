package queue

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ID.log")
	mustOK(t, os.WriteFile(file, []byte("out"), 0o644))
	f, err := OpenRegular(file)
	mustOK(t, err)
	f.Close()
	if _, err := OpenRegular(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	link := filepath.Join(dir, "link")
	if os.Symlink(file, link) == nil {
		if _, err := OpenRegular(link); !errors.Is(err, ErrBadFile) {
			t.Fatalf("link: %v", err)
		}
	}
	if _, err := OpenRegular(dir); !errors.Is(err, ErrBadFile) {
		t.Fatalf("directory: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo) // OpenRegular must refuse it, not block on it
	if _, err := OpenRegular(fifo); !errors.Is(err, ErrBadFile) {
		t.Fatalf("fifo: %v", err)
	}
}
