package originals

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(root, ".sandbox"), 0o755)
	return Open(folder.Folder{Root: root}), root
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, mode)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRestoreAll(t *testing.T) {
	s, root := newStore(t)
	edited, created := filepath.Join(root, "a.txt"), filepath.Join(root, "sub", "new.txt")
	write(t, edited, "original\n", 0o640)
	mustOK(t, s.Save(edited, "s1", "t1"))
	write(t, edited, "agent v1\n", 0o640)
	mustOK(t, s.Save(edited, "s1", "t2")) // a second change keeps the first original
	write(t, edited, "agent v2\n", 0o640)
	mustOK(t, s.Save(created, "s1", "t3"))
	write(t, created, "made by agent", 0o644)

	plan, err := s.Plan(Selection{All: true})
	mustOK(t, err)
	if len(plan) != 2 || plan[0].Op != OpRestore || plan[1].Op != OpRemove {
		t.Fatalf("plan = %+v", plan)
	}
	if read(t, edited) != "agent v2\n" {
		t.Fatal("planning changed a file")
	}
	mustOK(t, s.Apply(plan))
	if got := read(t, edited); got != "original\n" {
		t.Errorf("restored content %q", got)
	}
	if fi, _ := os.Stat(edited); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(created); !os.IsNotExist(err) {
		t.Errorf("created file still there: %v", err)
	}
	plan, _ = s.Plan(Selection{All: true})
	for _, a := range plan {
		if a.Op != OpUnchanged {
			t.Errorf("after restore %s is %s", a.Path, a.Op)
		}
	}
}

func TestSelections(t *testing.T) {
	s, root := newStore(t)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	write(t, a, "a0", 0o644)
	write(t, b, "b0", 0o644)
	mustOK(t, s.Save(a, "s1", "t1"))
	write(t, a, "a1", 0o644)
	mustOK(t, s.Save(a, "s2", "t2"))
	write(t, a, "a2", 0o644)
	mustOK(t, s.Save(b, "s2", "t3"))
	write(t, b, "b1", 0o644)
	tests := []struct {
		name string
		sel  Selection
		want map[string]string // path -> content after restore
	}{
		{"session s2 restores a to its state before s2", Selection{Session: "s2"}, map[string]string{a: "a1", b: "b0"}},
		{"session s1 leaves b", Selection{Session: "s1"}, map[string]string{a: "a0", b: "b1"}},
		{"path", Selection{Paths: []string{b}}, map[string]string{a: "a2", b: "b0"}},
		{"all", Selection{All: true}, map[string]string{a: "a0", b: "b0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write(t, a, "a2", 0o644)
			write(t, b, "b1", 0o644)
			plan, err := s.Plan(tc.sel)
			mustOK(t, err)
			mustOK(t, s.Apply(plan))
			for p, want := range tc.want {
				if got := read(t, p); got != want {
					t.Errorf("%s = %q, want %q", filepath.Base(p), got, want)
				}
			}
		})
	}
}

func TestUnknownPathHasNoOriginal(t *testing.T) {
	s, root := newStore(t)
	plan, err := s.Plan(Selection{Paths: []string{filepath.Join(root, "never")}})
	mustOK(t, err)
	if len(plan) != 1 || plan[0].Op != OpNone {
		t.Fatalf("plan = %+v", plan)
	}
	mustOK(t, s.Apply(plan))
}

func TestCorruptObjectIsNotRestored(t *testing.T) {
	s, root := newStore(t)
	p := filepath.Join(root, "a")
	write(t, p, "original", 0o644)
	mustOK(t, s.Save(p, "s", "t"))
	write(t, p, "changed", 0o644)
	plan, _ := s.Plan(Selection{All: true})
	obj := s.object(plan[0].Entry.Hash)
	os.Chmod(obj, 0o600)
	write(t, obj, "tampered", 0o600)
	if err := s.Apply(plan); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("apply: %v", err)
	}
	if read(t, p) != "changed" {
		t.Error("a corrupt original was written")
	}
}

func TestPlantedParentLinkIsNotFollowed(t *testing.T) {
	s, root := newStore(t)
	outside := t.TempDir()
	p := filepath.Join(root, "dir", "f")
	write(t, p, "original", 0o644)
	mustOK(t, s.Save(p, "s", "t"))
	mustOK(t, os.RemoveAll(filepath.Join(root, "dir")))
	mustOK(t, os.Symlink(outside, filepath.Join(root, "dir")))
	plan, _ := s.Plan(Selection{All: true})
	if err := s.Apply(plan); !errors.Is(err, ErrMoved) {
		t.Fatalf("apply: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); !os.IsNotExist(err) {
		t.Error("restore wrote through a planted link")
	}
}

func TestSaveRefusesNonRegular(t *testing.T) {
	s, root := newStore(t)
	if err := s.Save(root, "s", "t"); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("save of a directory: %v", err)
	}
	if err := s.Save("relative", "s", "t"); err == nil {
		t.Fatal("relative path accepted")
	}
}

func TestBadIndexLinesAreSkipped(t *testing.T) {
	s, root := newStore(t)
	p := filepath.Join(root, "a")
	write(t, p, "x", 0o644)
	mustOK(t, s.Save(p, "s", "t"))
	f, _ := os.OpenFile(s.index(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n{\"path\":\"rel\",\"time\":\"2020-01-01T00:00:00Z\"}\n{\"path\":\"/x\",\"existed\":true,\"hash\":\"../../etc/passwd\"}\n")
	f.Close()
	entries, bad, err := s.Entries()
	mustOK(t, err)
	if len(entries) != 1 || bad != 3 {
		t.Fatalf("entries %d bad %d", len(entries), bad)
	}
}
