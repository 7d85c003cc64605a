//go:build linux

package jail_linux

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// pinFixture is a project with .git (no hooks), a .codex link out of
// it, and none of the other protected names.
func pinFixture(t *testing.T) (root, outside string, cfg func() *initConfig, files map[string]string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".codex")); err != nil {
		t.Fatal(err)
	}
	cfg = func() *initConfig {
		return &initConfig{Writable: []string{root}, ReadOnly: []string{
			filepath.Join(root, ".git/hooks"), filepath.Join(root, ".git/commondir"),
			filepath.Join(root, ".github/workflows"), filepath.Join(root, ".github/other"),
			filepath.Join(root, ".codex/config.toml"), filepath.Join(root, ".envrc"),
		}}
	}
	return root, outside, cfg, map[string]string{filepath.Join(root, ".git/commondir"): ".\n"}
}

// TestPlaceholders: a missing protected name gets a placeholder at its
// first missing component (a file with its content where one is given),
// none through a link; release removes only what is still a placeholder.
func TestPlaceholders(t *testing.T) {
	root, outside, newCfg, files := pinFixture(t)
	cfg := newCfg()
	ps, err := makePins(cfg, files, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".git/hooks", ".git/commondir", ".github", ".envrc"}
	if len(cfg.Placeholders) != len(want) {
		t.Fatalf("placeholders %v, want %v", cfg.Placeholders, want)
	}
	for i, w := range want {
		if cfg.Placeholders[i] != filepath.Join(root, w) {
			t.Errorf("placeholder %d: %s, want %s", i, cfg.Placeholders[i], w)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, ".git/commondir")); err != nil || string(b) != ".\n" {
		t.Errorf("commondir: %q %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(root, ".envrc")); err != nil || !fi.IsDir() {
		t.Errorf(".envrc (no content given) is not a directory: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a placeholder was made through the link: %v", entries)
	}
	// one placeholder replaced meanwhile (on the host): it stays, the others go
	if err := os.Remove(filepath.Join(root, ".envrc")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".envrc"), []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	ps.release(slog.New(slog.DiscardHandler))
	for _, w := range want[:3] {
		if _, err := os.Lstat(filepath.Join(root, w)); err == nil {
			t.Errorf("%s left behind", w)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, ".envrc")); err != nil || string(b) != "the user's" {
		t.Errorf(".envrc: %q %v", b, err)
	}
}

// TestPlaceholdersOverlap: two runs of one project (parallel tool calls).
// The one that ends first leaves the placeholders the other stands on;
// the last one out removes them all, including those it did not make.
func TestPlaceholdersOverlap(t *testing.T) {
	root, _, newCfg, files := pinFixture(t)
	a, err := makePins(newCfg(), files, "")
	if err != nil {
		t.Fatal(err)
	}
	cfgB := newCfg()
	b, err := makePins(cfgB, files, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgB.Placeholders) != 4 { // the first run's, which the init binds and stops at
		t.Errorf("the second run's placeholders: %v", cfgB.Placeholders)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".github")); len(entries) != 0 {
		t.Errorf("the second run made placeholders inside the first's: %v", entries)
	}
	a.release(slog.New(slog.DiscardHandler))
	for _, w := range []string{".git/hooks", ".git/commondir", ".github", ".envrc"} {
		if _, err := os.Lstat(filepath.Join(root, w)); err != nil {
			t.Errorf("%s removed while the second run pins it: %v", w, err)
		}
	}
	b.release(slog.New(slog.DiscardHandler))
	entries, _ := os.ReadDir(root)
	gitEntries, _ := os.ReadDir(filepath.Join(root, ".git"))
	if len(entries) != 2 || len(gitEntries) != 0 { // .git and .codex
		t.Errorf("left behind: %v, .git/%v", entries, gitEntries)
	}
}

// TestPlaceholdersStash: a run's placeholders go to the stash at its
// end and the next run takes them back (the same inodes) instead of
// making new ones; the project holds none of them between runs.
func TestPlaceholdersStash(t *testing.T) {
	root, _, newCfg, files := pinFixture(t)
	stashDir := filepath.Join(t.TempDir(), "pins")
	a, err := makePins(newCfg(), files, stashDir)
	if err != nil {
		t.Fatal(err)
	}
	before := inodes(t, root, ".github", ".envrc", ".git/commondir")
	a.release(slog.New(slog.DiscardHandler))
	if entries, _ := os.ReadDir(root); len(entries) != 2 { // .git and .codex
		t.Errorf("between runs the project holds %v", entries)
	}
	if entries, _ := os.ReadDir(stashDir); len(entries) != 4 {
		t.Errorf("the stash holds %v, want the 4 placeholders", entries)
	}
	cfg := newCfg()
	b, err := makePins(cfg, files, stashDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Placeholders) != 4 {
		t.Errorf("placeholders %v", cfg.Placeholders)
	}
	if after := inodes(t, root, ".github", ".envrc", ".git/commondir"); !slices.Equal(before, after) {
		t.Errorf("the second run made new placeholders (%v, before %v)", after, before)
	}
	if b2, err := os.ReadFile(filepath.Join(root, ".git/commondir")); err != nil || string(b2) != ".\n" {
		t.Errorf("commondir from the stash: %q %v", b2, err)
	}
	b.release(slog.New(slog.DiscardHandler))
}

// TestPlaceholdersStashChanged: nothing changed is stashed or taken
// back: a placeholder written into during the run stays where it is (as
// before), and a stash entry that is no unchanged placeholder (a file in
// the directory, another mode, the mark gone, other content) is never
// put at a protected name: the run makes a fresh one.
func TestPlaceholdersStashChanged(t *testing.T) {
	tamper := map[string]func(t *testing.T, p string){
		"a file inside": func(t *testing.T, p string) {
			os.Chmod(p, 0o755)
			mustWriteFile(t, filepath.Join(p, "planted"), "x")
			os.Chmod(p, 0o555)
		},
		"writable": func(t *testing.T, p string) { os.Chmod(p, 0o755) },
		"unmarked": func(t *testing.T, p string) {
			if err := unix.Removexattr(p, placeholderAttr); err != nil {
				t.Skip("no user extended attributes here")
			}
		},
	}
	for name, change := range tamper {
		t.Run(name, func(t *testing.T) {
			root, _, newCfg, files := pinFixture(t)
			stashDir := filepath.Join(t.TempDir(), "pins")
			a, err := makePins(newCfg(), files, stashDir)
			if err != nil {
				t.Fatal(err)
			}
			a.release(slog.New(slog.DiscardHandler))
			entries, _ := os.ReadDir(stashDir)
			for _, e := range entries {
				if e.IsDir() {
					change(t, filepath.Join(stashDir, e.Name()))
				}
			}
			b, err := makePins(newCfg(), files, stashDir)
			if err != nil {
				t.Fatal(err)
			}
			defer b.release(slog.New(slog.DiscardHandler))
			for _, d := range []string{".github", ".envrc", ".git/hooks"} {
				p := filepath.Join(root, d)
				got, err := os.ReadDir(p)
				fi, serr := os.Stat(p)
				if err != nil || serr != nil || len(got) != 0 || fi.Mode().Perm() != 0o555 {
					t.Errorf("%s: %v %v %v", d, got, err, serr)
				}
			}
		})
	}
	t.Run("changed during the run", func(t *testing.T) {
		root, _, newCfg, files := pinFixture(t)
		stashDir := filepath.Join(t.TempDir(), "pins")
		a, err := makePins(newCfg(), files, stashDir)
		if err != nil {
			t.Fatal(err)
		}
		gh := filepath.Join(root, ".github")
		os.Chmod(gh, 0o755)
		mustWriteFile(t, filepath.Join(gh, "the-users"), "x")
		a.release(slog.New(slog.DiscardHandler))
		if b, err := os.ReadFile(filepath.Join(gh, "the-users")); err != nil || string(b) != "x" {
			t.Errorf("the user's file in .github: %q %v", b, err)
		}
		entries, _ := os.ReadDir(stashDir)
		if len(entries) != 3 {
			t.Errorf("the stash holds %v, want the 3 unchanged placeholders", entries)
		}
	})
}

func inodes(t *testing.T, root string, rels ...string) []uint64 {
	t.Helper()
	var out []uint64
	for _, r := range rels {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(root, r), &st); err != nil {
			t.Fatal(err)
		}
		out = append(out, st.Ino)
	}
	return out
}

func mustWriteFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
