//go:build linux

package jail_linux

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// TestPlaceholders: a missing protected name gets a placeholder at its
// first missing component (a file with its content where one is given),
// none through a link; removal takes only what is still the placeholder.
func TestPlaceholders(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{".git", "linked-target"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, ".codex")); err != nil {
		t.Fatal(err)
	}
	cfg := &initConfig{Writable: []string{root}, ReadOnly: []string{
		filepath.Join(root, ".git/hooks"), filepath.Join(root, ".git/commondir"),
		filepath.Join(root, ".github/workflows"), filepath.Join(root, ".github/other"),
		filepath.Join(root, ".codex/config.toml"), filepath.Join(root, ".envrc"),
	}}
	phs, err := makePlaceholders(cfg, map[string]string{filepath.Join(root, ".git/commondir"): ".\n"})
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
	// one placeholder replaced meanwhile: it stays, the others go
	if err := os.Remove(filepath.Join(root, ".envrc")); err != nil {
		t.Fatal(err)
	}
	mustWriteFile(t, filepath.Join(root, ".envrc"), "the user's")
	removePlaceholders(phs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, w := range want[:3] {
		if _, err := os.Lstat(filepath.Join(root, w)); err == nil {
			t.Errorf("%s left behind", w)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, ".envrc")); err != nil || string(b) != "the user's" {
		t.Errorf(".envrc: %q %v", b, err)
	}
}

func mustWriteFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
