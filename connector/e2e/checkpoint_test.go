package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rmPolicy allows rm in the project, as the jail-based default policy
// does; the test does not depend on what today's default says of rm.
const rmPolicy = `version: 1
shell:
  allow:
    - "rm **"
write:
  allow:
    - "**"
`

// tree describes dir: path -> mode and content (or link target).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().Perm().String()
		default:
			data, _ := os.ReadFile(p)
			out[rel] = fi.Mode().Perm().String() + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d paths, want %d: %v", len(got), len(want), got)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
}

// `rm -rf src` allowed through the real Claude Code hook is checkpointed
// first, and `sandbox restore --checkpoint ID` (a dry run, then --yes)
// brings src back byte for byte with its modes and links, never through
// a link planted in its place.
func TestHookCheckpointThenRestore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", map[string]string{
		"src/main.go": "package main\n", "src/deep/er/data.bin": "\x00\x01\xff binary", "README.md": "readme\n",
	})
	src := filepath.Join(dir, "src")
	os.Chmod(filepath.Join(src, "main.go"), 0o600)
	os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Chmod(filepath.Join(src, "deep"), 0o700)
	os.Symlink("deep/er/data.bin", filepath.Join(src, "link"))
	os.WriteFile(filepath.Join(dir, ".sandbox", "policy.yaml"), []byte(rmPolicy), 0o644)
	e.mustSandbox("policy", "accept", "--yes", "--dir", dir)
	want := tree(t, src)

	out, errOut, code := e.hook(t, preEvent(dir, "Bash", map[string]any{"command": "rm -rf src", "description": "clean"}), "claude")
	if code != 0 || !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if err := os.RemoveAll(src); err != nil { // what the agent does next
		t.Fatal(err)
	}

	var list []struct {
		ID, Command string
		Files       int
	}
	listing := e.mustSandbox("checkpoints", "--json", "--dir", dir)
	if err := json.Unmarshal([]byte(listing), &list); err != nil || len(list) != 1 {
		t.Fatalf("checkpoints: %v\n%s", err, listing)
	}
	ck := list[0]
	if ck.Command != "rm -rf src" || ck.Files != 4 {
		t.Errorf("checkpoint %+v", ck)
	}
	mustContain(t, "the table", e.mustSandbox("checkpoints", dir), ck.ID, "s-hook", "toolu_hook", "rm -rf src")

	// A link planted where src was: nothing is written where it points.
	outside := t.TempDir()
	if err := os.Symlink(outside, src); err != nil {
		t.Fatal(err)
	}
	out, err := e.sandbox("restore", "--dir", dir, "--checkpoint", ck.ID, "--yes")
	if err == nil || !strings.Contains(out, "conflict") {
		t.Errorf("restore through a planted link: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("restore wrote through the planted link: %v", ents)
	}
	os.Remove(src)

	dry := e.mustSandbox("restore", "--dir", dir, "--checkpoint", ck.ID)
	mustContain(t, "the dry run", dry, "dry run", "mkdir", src, "restore", filepath.Join(src, "main.go"), "--yes")
	if _, err := os.Lstat(src); !os.IsNotExist(err) {
		t.Fatal("the dry run restored something")
	}
	e.mustSandbox("restore", "--dir", dir, "--checkpoint", ck.ID, "--yes")
	sameTree(t, tree(t, src), want)
	mustContain(t, "a second restore", e.mustSandbox("restore", "--dir", dir, "--checkpoint", ck.ID), "nothing to restore")
}

// The session brief tells the model that deletions are recoverable.
func TestHookBriefPromisesCheckpoints(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("claude", nil)
	out, errOut, code := e.hook(t, map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"}, "claude")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	mustContain(t, "the brief", out, "recoverable", "sandbox restore --checkpoint")
}
