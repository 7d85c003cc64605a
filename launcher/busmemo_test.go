package launcher

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/internal/filestamp"
	"github.com/sandbox-dev/sandbox/shims"
)

// TestBusMemo: buses that share a memo leave the shims alone while the
// shims dir, the binary and the cache are what the last bus left, and put
// back whatever changed since: a link removed or replaced, the binary
// replaced, the cache removed or a new policy accepted.
func TestBusMemo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are copies on Windows; the memo is the hook server's (unix)")
	}
	defer func(r time.Duration) { filestamp.Racy = r }(filestamp.Racy)
	filestamp.Racy = 0 // everything here was written a moment ago
	f, st, accept := acceptingFolder(t)
	for _, d := range f.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	accept("version: 1\nshell:\n  allow: [\"git status\"]\nshims: [git, npm]\n")
	exe := filepath.Join(t.TempDir(), "sandbox")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	memo := NewBusMemo(nil)
	run := func() *Bus {
		t.Helper()
		b, err := OpenBus(BusOptions{Folder: f, State: st, Exe: exe, Memo: memo})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.wait(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		return b
	}
	link := func(name string) string {
		l, _ := os.Readlink(filepath.Join(f.Shims(), name))
		return l
	}
	cache := func() string {
		b, _ := os.ReadFile(shims.CachePath(f.Shims()))
		return string(b)
	}
	run()
	if link("git") != exe || link("npm") != exe {
		t.Fatalf("first run: git -> %q, npm -> %q", link("git"), link("npm"))
	}
	first := cache()
	if first == "" {
		t.Fatal("first run: no cache")
	}
	run()
	if !memo.linksCurrent(f.Shims(), exe, []string{"npm", "git"}) || !memo.cacheCurrent(f.Shims(), memo.hashForTest(t, f, st)) {
		t.Fatal("two runs on an unchanged dir: the memo does not know it current")
	}

	// a link removed, a link replaced by one to another program
	os.Remove(filepath.Join(f.Shims(), "git"))
	run()
	if link("git") != exe {
		t.Errorf("a removed shim was not put back: %q", link("git"))
	}
	os.Remove(filepath.Join(f.Shims(), "npm"))
	if err := os.Symlink("/bin/sh", filepath.Join(f.Shims(), "npm")); err != nil {
		t.Fatal(err)
	}
	run()
	if link("npm") != exe {
		t.Errorf("a replaced shim was not put back: %q", link("npm"))
	}

	// the binary replaced (a new build at the same path): the links are
	// checked again
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n# new\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if memo.linksCurrent(f.Shims(), exe, []string{"git", "npm"}) {
		t.Error("a replaced binary still counts as current")
	}
	run()

	// the cache removed, then a new policy accepted
	os.Remove(shims.CachePath(f.Shims()))
	run()
	if cache() != first {
		t.Error("a removed cache was not written again")
	}
	accept("version: 1\nshell:\n  allow: [\"git status\", \"ls\"]\nshims: [git, npm, make]\n")
	run()
	if c := cache(); c == first || c == "" {
		t.Error("the cache still holds the old policy")
	}
	if link("make") != exe {
		t.Errorf("the new policy's shim is missing: %q", link("make"))
	}
	names, _ := os.ReadDir(f.Shims())
	var got []string
	for _, e := range names {
		got = append(got, e.Name())
	}
	if !slices.Contains(got, "make") {
		t.Errorf("shims dir: %v", got)
	}
}

// hashForTest is the accepted policy's hash, as the bus keys the cache.
func (m *BusMemo) hashForTest(t *testing.T, f folder.Folder, st *userstate.State) string {
	t.Helper()
	e, _, err := m.Policies.Load(f, st)
	if err != nil {
		t.Fatal(err)
	}
	return e.Policy().SHA256
}

// TestPrepareShims: a folder's shims linked ahead of its first run are
// its policy's, to the binary (its links resolved); the run's bus leaves
// them as they are and replaces one that is not the binary (what a
// checkout beside PrepareShims could have put there).
func TestPrepareShims(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shims are copies on Windows")
	}
	f, st, accept := acceptingFolder(t)
	if err := f.Create(); err != nil {
		t.Fatal(err)
	}
	accept("version: 1\nshims: [git, npm]\n")
	e, _, err := store.Load(f, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	exe := filepath.Join(dir, "sandbox")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	alias := filepath.Join(dir, "alias")
	os.Symlink(exe, alias)
	if err := PrepareShims(f, e, alias); err != nil {
		t.Fatal(err)
	}
	names, _ := os.ReadDir(f.Shims())
	var got []string
	for _, n := range names {
		got = append(got, n.Name())
		if l, _ := os.Readlink(filepath.Join(f.Shims(), n.Name())); l != exe {
			t.Errorf("%s links to %q, want %s", n.Name(), l, exe)
		}
	}
	if !slices.Equal(got, []string{"git", "npm"}) {
		t.Errorf("shims %v, want the policy's git and npm", got)
	}
	os.Remove(filepath.Join(f.Shims(), "npm"))
	os.WriteFile(filepath.Join(f.Shims(), "npm"), []byte("#!/bin/sh\necho planted\n"), 0o755)
	// the bus is given the same name as PrepareShims (a link): both link
	// the shims to what it resolves to
	b, err := OpenBus(BusOptions{Folder: f, State: st, Exe: alias})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.wait(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	for _, n := range []string{"git", "npm"} {
		if l, _ := os.Readlink(filepath.Join(f.Shims(), n)); l != exe {
			t.Errorf("after the run's bus, %s links to %q, want %s", n, l, exe)
		}
	}
}

// TestBusInAFreshClone: a fresh clone's .sandbox/ holds only what is
// committed (no shims directory): its first run's bus writes the shims'
// policy cache all the same, so the shims decide by the accepted policy
// from that first run on.
func TestBusInAFreshClone(t *testing.T) {
	f, st, accept := acceptingFolder(t)
	accept("version: 1\nshell:\n  allow: [\"git status\"]\n")
	b, err := OpenBus(BusOptions{Folder: f, State: st})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.wait(); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := os.Stat(shims.CachePath(f.Shims())); err != nil {
		t.Errorf("no shim policy cache after the first run's bus: %v", err)
	}
}

// TestBusTakesLoadedPolicy: a bus handed the policy its opener just
// loaded starts from that engine (its shims and cache follow it) instead
// of loading it again, and its next load reads the files: a policy
// accepted since is the one the decisions get.
func TestBusTakesLoadedPolicy(t *testing.T) {
	f, st, accept := acceptingFolder(t)
	accept("version: 1\nshell:\n  allow: [\"git status\"]\nshims: [git, npm]\n")
	loaded, _, err := store.Load(f, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	accept("version: 1\nshell:\n  allow: [\"make test\"]\nshims: [make]\n")
	b, err := OpenBus(BusOptions{Folder: f, State: st, Loaded: loaded})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.wait(); err != nil {
		t.Fatal(err)
	}
	if b.Policy() != loaded {
		t.Fatal("the bus loaded the policy again instead of taking the one it was handed")
	}
	if !slices.Equal(b.names, []string{"git", "npm"}) {
		t.Errorf("shims %v, want the handed policy's [git npm]", b.names)
	}
	if b.cacheOf != loaded.Policy().SHA256 {
		t.Errorf("shim cache of %q, want the handed policy's %q", b.cacheOf, loaded.Policy().SHA256)
	}
	next, err := b.load()
	if err != nil {
		t.Fatal(err)
	}
	if next == loaded || !slices.Equal(next.Policy().Shims, []string{"make"}) {
		t.Errorf("the next load did not read the policy accepted since: shims %v", next.Policy().Shims)
	}
}

// acceptingFolder is a project with its .sandbox/ (nothing in it) and a
// per-user state of its own; accept writes a policy and accepts it.
func acceptingFolder(t *testing.T) (f folder.Folder, st *userstate.State, accept func(yaml string)) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f = folder.Folder{Root: root}
	if err := os.MkdirAll(f.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	return f, st, func(yaml string) {
		t.Helper()
		if err := os.WriteFile(f.Policy(), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := store.Accept(f, st, []byte(yaml)); err != nil {
			t.Fatal(err)
		}
	}
}
