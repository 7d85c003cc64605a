package shims

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shims")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := Install(dir, exe, []string{"git", "npm", "old"}); err != nil {
		t.Fatal(err)
	}
	writeExec(t, filepath.Join(dir, "stray"), "#!/bin/sh\n")
	writeExec(t, CachePath(dir), "cache")
	before, _ := os.Lstat(filepath.Join(dir, "git"))
	if err := Install(dir, exe, []string{"git", "npm", "make"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{cacheName, "git", "make", "npm"}; !slices.Equal(names, want) {
		t.Errorf("shim dir holds %q, want %q", names, want)
	}
	self, _ := os.Stat(exe)
	for _, n := range []string{"git", "make", "npm"} {
		fi, err := os.Stat(filepath.Join(dir, n))
		if err != nil || !os.SameFile(fi, self) {
			t.Errorf("%s is not the sandbox binary: %v", n, err)
		}
	}
	if after, _ := os.Lstat(filepath.Join(dir, "git")); !os.SameFile(before, after) {
		t.Error("an up-to-date shim was replaced")
	}
}

func TestInstallRefusesBadNames(t *testing.T) {
	exe, _ := os.Executable()
	for _, names := range [][]string{{"../git"}, {"sandbox"}, {".policy-cache"}, {"git", "git"}, {""}, {"a/b"}} {
		if err := Install(t.TempDir(), exe, names); !errors.Is(err, ErrBadName) {
			t.Errorf("Install(%q) = %v, want ErrBadName", names, err)
		}
	}
}

func TestInstallReplacesAStaleShim(t *testing.T) {
	dir := t.TempDir()
	exe, _ := os.Executable()
	writeExec(t, filepath.Join(dir, "git"), "#!/bin/sh\necho stale\n")
	if err := Install(dir, exe, []string{"git"}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "git"))
	self, _ := os.Stat(exe)
	if !os.SameFile(fi, self) {
		t.Error("the stale git was kept")
	}
}
