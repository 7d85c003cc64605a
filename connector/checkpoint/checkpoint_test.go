package checkpoint

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// project builds src/ with nested directories, odd modes, a link and an
// empty directory, and returns its snapshot.
func project(t *testing.T, root string) map[string]string {
	t.Helper()
	writeFile(t, filepath.Join(root, "src", "main.go"), "package main\n", 0o644)
	writeFile(t, filepath.Join(root, "src", "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
	writeFile(t, filepath.Join(root, "src", "secret.txt"), "only me\n", 0o600)
	writeFile(t, filepath.Join(root, "src", "deep", "er", "x.bin"), "\x00\x01\x02binary\xff", 0o640)
	writeFile(t, filepath.Join(root, "src", "empty.txt"), "", 0o644)
	mustOK(t, os.MkdirAll(filepath.Join(root, "src", "emptydir"), 0o750))
	mustOK(t, os.Chmod(filepath.Join(root, "src", "emptydir"), 0o750))
	mustOK(t, os.Symlink("deep/er/x.bin", filepath.Join(root, "src", "link")))
	mustOK(t, os.Chmod(filepath.Join(root, "src", "deep"), 0o711))
	return snapshot(t, filepath.Join(root, "src"))
}

func TestRemovedTreeComesBackByteForByte(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	s, root := newTestStore(t, Options{})
	want := project(t, root)
	ck, err := s.Take(Request{Paths: []string{filepath.Join(root, "src")}, Session: "s1", ToolUseID: "t1", Tool: "Bash", Command: "rm -rf src"})
	mustOK(t, err)
	if ck == nil || ck.Files != 6 || len(ck.Targets) != 1 || ck.Targets[0] != "src" {
		t.Fatalf("checkpoint = %+v", ck)
	}
	mustOK(t, os.RemoveAll(filepath.Join(root, "src")))

	got, err := s.Get(ck.ID)
	mustOK(t, err)
	plan, err := s.Plan(got)
	mustOK(t, err)
	if _, err := os.Lstat(filepath.Join(root, "src")); !os.IsNotExist(err) {
		t.Fatal("planning wrote something")
	}
	mustOK(t, s.Apply(plan))
	sameSnapshot(t, snapshot(t, filepath.Join(root, "src")), want)
	for _, a := range restoreAll(t, s, got) {
		if a.Changes() {
			t.Errorf("second restore: %s %s", a.Op, a.Path)
		}
	}
}

func TestOverwrittenAndCreatedFiles(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	s, root := newTestStore(t, Options{})
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "sub", "b.txt")
	writeFile(t, a, "original a", 0o640)
	ck, err := s.Take(Request{Paths: []string{a, b}, Command: "mv a.txt sub/b.txt"})
	mustOK(t, err)
	if len(ck.Absent) != 1 || ck.Absent[0] != "sub/b.txt" {
		t.Fatalf("absent = %v", ck.Absent)
	}
	writeFile(t, a, "changed!!!", 0o644) // same size, other mode
	writeFile(t, b, "created", 0o644)
	plan := restoreAll(t, s, ck)
	ops := map[string]Op{}
	for _, p := range plan {
		ops[p.Path] = p.Op
	}
	if ops["a.txt"] != OpRestore || ops["sub/b.txt"] != OpRemove {
		t.Errorf("plan = %v", ops)
	}
	if data, _ := os.ReadFile(a); string(data) != "original a" {
		t.Errorf("a = %q", data)
	}
	if fi, _ := os.Stat(a); fi.Mode().Perm() != 0o640 {
		t.Errorf("a mode %v", fi.Mode().Perm())
	}
	if _, err := os.Lstat(b); !os.IsNotExist(err) {
		t.Errorf("created file still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "sub")); err != nil {
		t.Error("restore removed a directory it did not record")
	}
}

func TestChmodOnly(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	s, root := newTestStore(t, Options{})
	p := filepath.Join(root, "run.sh")
	writeFile(t, p, "x", 0o700)
	ck, err := s.Take(Request{Paths: []string{p}})
	mustOK(t, err)
	mustOK(t, os.Chmod(p, 0o644))
	plan := restoreAll(t, s, ck)
	if len(plan) != 1 || plan[0].Op != OpChmod {
		t.Fatalf("plan = %+v", plan)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}

func TestPathsOutsideTheProjectAreIgnored(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	s, root := newTestStore(t, Options{})
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret"), "not ours", 0o600)
	mustOK(t, os.Symlink(outside, filepath.Join(root, "out")))
	for _, p := range []string{filepath.Join(outside, "secret"), filepath.Join(root, "out", "secret"), filepath.Join(root, "..", filepath.Base(outside)), "relative", "/"} {
		ck, err := s.Take(Request{Paths: []string{p}})
		mustOK(t, err)
		if ck != nil {
			t.Errorf("%s: kept %+v", p, ck)
		}
	}
	// The link itself is inside: it is kept as a link, never followed.
	ck, err := s.Take(Request{WholeTree: true})
	mustOK(t, err)
	items, err := s.items(ck)
	mustOK(t, err)
	if len(items) != 1 || items[0].Kind != Link || items[0].Path != "out" {
		t.Errorf("items = %+v", items)
	}
}

func TestWhatIsNotKept(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	s, root := newTestStore(t, Options{MaxFileSize: 10})
	writeFile(t, filepath.Join(root, "small"), "ok", 0o644)
	writeFile(t, filepath.Join(root, "big"), "more than ten bytes", 0o644)
	writeFile(t, filepath.Join(root, "node_modules", "x", "i.js"), "1", 0o644)
	writeFile(t, filepath.Join(root, "target", "CACHEDIR.TAG"), "Signature", 0o644)
	writeFile(t, filepath.Join(root, "target", "debug", "bin"), "1", 0o644)
	writeFile(t, filepath.Join(root, ".venv", "pyvenv.cfg"), "home", 0o644)
	writeFile(t, filepath.Join(root, ".git", "HEAD"), "ref", 0o644)
	writeFile(t, filepath.Join(root, ".sandbox", "policy.yaml"), "x", 0o644)
	writeFile(t, filepath.Join(root, "sub", ".git"), "gitdir: x", 0o644)
	ck, err := s.Take(Request{WholeTree: true})
	mustOK(t, err)
	notKept := map[string]string{}
	for _, n := range ck.NotKept {
		notKept[n.Path] = n.Reason
	}
	for _, p := range []string{"big", "node_modules", "target", ".venv"} {
		if notKept[p] == "" {
			t.Errorf("%s is not listed as not kept: %v", p, notKept)
		}
	}
	items, err := s.items(ck)
	mustOK(t, err)
	var kept []string
	for _, it := range items {
		kept = append(kept, it.Path)
	}
	if strings.Join(kept, " ") != "small sub" {
		t.Errorf("kept %v", kept)
	}
	// Named directly, a regenerable directory is still not kept, and
	// nothing in a repository's .git is.
	writeFile(t, filepath.Join(root, ".git", "hooks", "pre-commit"), "#!/bin/sh", 0o755)
	ck, err = s.Take(Request{Paths: []string{filepath.Join(root, "node_modules"), filepath.Join(root, ".git"),
		filepath.Join(root, ".git", "hooks", "pre-commit"), filepath.Join(root, "sub", ".git", "x"), filepath.Join(root, ".sandbox", "policy.yaml")}})
	mustOK(t, err)
	if ck.Files != 0 || ck.NotKeptCount != 1 {
		t.Errorf("node_modules and .git: %+v", ck)
	}
}

func TestStatCacheSeesEveryChange(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	past := time.Now().Add(-time.Hour)
	s, root := newTestStore(t, Options{Now: func() time.Time { return past.Add(2 * time.Hour) }})
	p := filepath.Join(root, "f")
	writeFile(t, p, "version 1", 0o644)
	mustOK(t, os.Chtimes(p, past, past))
	first, err := s.Take(Request{WholeTree: true})
	mustOK(t, err)
	again, err := s.Take(Request{WholeTree: true})
	mustOK(t, err)
	if again.Tree != first.Tree || again.Added != 0 {
		t.Fatalf("unchanged tree: %+v then %+v", first, again)
	}
	// Same size, the old mtime forged back: the ctime still differs.
	writeFile(t, p, "version 2", 0o644)
	mustOK(t, os.Chtimes(p, past, past))
	changed, err := s.Take(Request{WholeTree: true})
	mustOK(t, err)
	if changed.Tree == first.Tree {
		t.Fatal("a rewritten file was taken from the stat cache")
	}
	mustOK(t, os.WriteFile(p, []byte("version 3"), 0o644))
	restoreAll(t, s, changed)
	if data, _ := os.ReadFile(p); string(data) != "version 2" {
		t.Errorf("restored %q", data)
	}
}

func TestCorruptObjectIsNotRestored(t *testing.T) {
	t.Parallel()
	s, root := newTestStore(t, Options{})
	p := filepath.Join(root, "f")
	writeFile(t, p, "original", 0o644)
	ck, err := s.Take(Request{Paths: []string{p}})
	mustOK(t, err)
	writeFile(t, p, "changed", 0o644)
	items, err := s.items(ck)
	mustOK(t, err)
	obj := s.objectPath(items[0].ID)
	mustOK(t, os.Chmod(obj, 0o600))
	mustOK(t, s.writeNew(obj, []byte("x\x9c garbage")))
	plan, err := s.Plan(ck)
	mustOK(t, err)
	if err := s.Apply(plan); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("apply: %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "changed" {
		t.Errorf("a corrupt object was written: %q", data)
	}
}

func TestGetRefusesBadIDs(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t, Options{})
	for _, id := range []string{"", "../../etc/passwd", "20261201-190400-zzzzzzzz", "x"} {
		if _, err := s.Get(id); !errors.Is(err, ErrBadID) {
			t.Errorf("%q: %v", id, err)
		}
	}
	if _, err := s.Get("20261201-190400-00000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
}

func TestOtherProjectsCheckpointIsRefused(t *testing.T) {
	t.Parallel()
	s, root := newTestStore(t, Options{})
	writeFile(t, filepath.Join(root, "f"), "x", 0o644)
	ck, err := s.Take(Request{WholeTree: true})
	mustOK(t, err)
	other, err := Open(s.Dir(), t.TempDir(), Options{})
	mustOK(t, err)
	if _, err := other.Plan(ck); !errors.Is(err, ErrOtherProject) {
		t.Fatalf("plan: %v", err)
	}
}

func TestGitReadsTheStore(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	s, root := newTestStore(t, Options{})
	project(t, root)
	// Git sorts a directory as if its name ended in "/": a-b, a.txt, a/.
	for _, p := range []string{"a-b", "a.txt", "a/x"} {
		writeFile(t, filepath.Join(root, "src", p), p, 0o644)
	}
	ck, err := s.Take(Request{Paths: []string{filepath.Join(root, "src")}})
	mustOK(t, err)
	out, err := exec.Command(git, "--git-dir="+s.Dir(), "ls-tree", "-r", ck.Tree).CombinedOutput()
	if err != nil {
		t.Skipf("git cannot read sha256 repositories here: %v %s", err, out)
	}
	for _, want := range []string{"src/main.go", "100755 blob", "120000 blob", "src/deep/er/x.bin"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("git ls-tree lacks %q:\n%s", want, out)
		}
	}
	out, err = exec.Command(git, "--git-dir="+s.Dir(), "fsck", "--no-dangling").CombinedOutput()
	if err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}
