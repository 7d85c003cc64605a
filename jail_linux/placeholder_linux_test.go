//go:build linux

package jail_linux

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
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
	ps, err := makePins(cfg, files)
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
	a, err := makePins(newCfg(), files)
	if err != nil {
		t.Fatal(err)
	}
	cfgB := newCfg()
	b, err := makePins(cfgB, files)
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
