package userstate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestOpenCreatesKeyOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if _, err := OpenDir(dir, false); err == nil {
		t.Fatal("OpenDir without create succeeded on a missing dir")
	}
	a, err := OpenDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := OpenDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Key) != KeySize || !bytes.Equal(a.Key, b.Key) {
		t.Fatalf("key not stable: %x vs %x", a.Key, b.Key)
	}
	if runtime.GOOS == "windows" {
		return
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "key"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %o, want %o", path, fi.Mode().Perm(), want)
		}
	}
}

func TestBadKeys(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes and symlinks differ on Windows")
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, key string)
	}{
		{"too open", func(t *testing.T, key string) { write(t, key, make([]byte, KeySize), 0o644) }},
		{"wrong size", func(t *testing.T, key string) { write(t, key, []byte("short"), 0o600) }},
		{"symlink", func(t *testing.T, key string) {
			target := key + ".real"
			write(t, target, make([]byte, KeySize), 0o600)
			if err := os.Symlink(target, key); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.plant(t, filepath.Join(dir, "key"))
			if _, err := OpenDir(dir, true); !errors.Is(err, ErrBadKey) {
				t.Fatalf("OpenDir = %v, want ErrBadKey", err)
			}
		})
	}
}

func write(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultDirHonoursXDG(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("LOCALAPPDATA on Windows")
	}
	base := t.TempDir()
	t.Setenv("XDG_STATE_HOME", base)
	got, err := DefaultDir()
	if err != nil || got != filepath.Join(base, "sandbox") {
		t.Fatalf("DefaultDir = %q, %v", got, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative/path") // ignored, as the spec says
	t.Setenv("HOME", base)
	got, _ = DefaultDir()
	if got != filepath.Join(base, ".local", "state", "sandbox") {
		t.Fatalf("relative XDG_STATE_HOME not ignored: %q", got)
	}
}

func TestFolderDirIsPerFolder(t *testing.T) {
	st, err := OpenDir(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := st.FolderDir("/p/one")
	b, _ := st.FolderDir("/p/two")
	a2, _ := st.FolderDir("/p/one")
	if a == b || a != a2 {
		t.Fatalf("FolderDir not a stable per-folder dir: %s %s %s", a, b, a2)
	}
}
