//go:build unix

package broker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// noTemps fails if a temporary file was left anywhere under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".sandbox-write-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestApplyWrite(t *testing.T) {
	tests := []struct {
		name     string
		existing string      // content of an existing file, "" for none
		mode     os.FileMode // of the existing file
		path     string      // relative to root
		created  bool
		wantMode os.FileMode
	}{
		{"new file", "", 0, "new.txt", true, 0o644},
		{"new file in new directories", "", 0, "a/b/c/new.txt", true, 0o644},
		{"replace keeps 0600", "old", 0o600, "secret.txt", false, 0o600},
		{"replace keeps 0755", "old", 0o755, "bin/tool", false, 0o755},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, tc.path)
			if tc.existing != "" {
				writeFile(t, path, tc.existing, tc.mode)
			}
			content := []byte("new content\n")
			wo, err := broker.ApplyWrite(root, path, content)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			fi, _ := os.Lstat(path)
			if string(got) != string(content) || fi.Mode() != tc.wantMode {
				t.Errorf("content %q mode %v, want %v", got, fi.Mode(), tc.wantMode)
			}
			want := broker.WriteOutcome{Path: path, SHA256: sha(got), Created: tc.created, Size: int64(len(content))}
			if wo != want {
				t.Errorf("outcome %+v, want %+v", wo, want)
			}
			noTemps(t, root)
		})
	}
}

func TestApplyWriteRelativeAndOutsideRoot(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	wo, err := broker.ApplyWrite(root, "sub/rel.txt", []byte("r"))
	if err != nil || wo.Path != filepath.Join(root, "sub/rel.txt") {
		t.Fatalf("relative: %+v %v", wo, err)
	}
	out := filepath.Join(elsewhere, "approved.txt")
	if wo, err := broker.ApplyWrite(root, out, []byte("o")); err != nil || !wo.Created {
		t.Fatalf("absolute outside: %+v %v", wo, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "o" {
		t.Errorf("outside file %q", b)
	}
	if _, err := broker.ApplyWrite(root, "../escape.txt", []byte("x")); !errors.Is(err, broker.ErrPath) {
		t.Errorf("relative escape: %v", err)
	}
}

// TestApplyWriteNeverFollowsLinks: links planted at the target or on the
// way are refused and what they point to is untouched.
func TestApplyWriteNeverFollowsLinks(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside")
	victim := filepath.Join(outside, "victim")
	writeFile(t, victim, "precious", 0o600)
	writeFile(t, filepath.Join(root, "real/keep"), "k", 0o644)
	mustSymlink(t, victim, filepath.Join(root, "link"))
	mustSymlink(t, filepath.Join(outside, "nothing"), filepath.Join(root, "dangling"))
	mustSymlink(t, outside, filepath.Join(root, "dirlink"))
	mustSymlink(t, "real", filepath.Join(root, "innerlink"))
	mustSymlink(t, outside, filepath.Join(base, "outlink"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       error
	}{
		{"link at the target", root + "/link", broker.ErrSymlink},
		{"dangling link at the target", root + "/dangling", broker.ErrSymlink},
		{"linked directory", root + "/dirlink/victim", broker.ErrSymlink},
		{"linked directory, new file", root + "/dirlink/new", broker.ErrSymlink},
		{"linked directory, new directories", root + "/dirlink/d/e/new", broker.ErrSymlink},
		{"link to a directory inside root", root + "/innerlink/keep", broker.ErrSymlink},
		{"link outside root", base + "/outlink/victim", broker.ErrSymlink},
		{"a directory", root + "/real", broker.ErrNotRegular},
		{"a fifo", root + "/fifo", broker.ErrNotRegular},
		{"the root itself", root, broker.ErrPath},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := broker.ApplyWrite(root, tc.path, []byte("pwned"))
			if !errors.Is(err, tc.want) {
				t.Fatalf("write: %v, want %v", err, tc.want)
			}
			_, err = broker.ApplyEdits(root, tc.path, []broker.Edit{{Old: "precious", New: "pwned"}})
			if err == nil {
				t.Fatal("edit succeeded")
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("victim now %q", b)
	}
	for _, p := range []string{outside + "/nothing", outside + "/new", outside + "/d"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s created through a link", p)
		}
	}
	if fi, _ := os.Lstat(root + "/link"); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the planted link was replaced")
	}
	noTemps(t, base)
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
