package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The CLI contract of `checkpoints` and `restore --checkpoint`: listing
// (table, --json, --session), the dry run that changes nothing, usage
// errors for an unknown id or a second mode, and control characters of
// a command escaped.
func TestCheckpointsCLI(t *testing.T) {
	f, st := testenv.Project(t)
	testenv.UseState(t, st)
	src := filepath.Join(f.Root, "src", "a.txt")
	os.MkdirAll(filepath.Dir(src), 0o755)
	os.WriteFile(src, []byte("kept"), 0o640)
	store, err := live.StoreFor(st, f.Root, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ck, err := store.Take(checkpoint.Request{Paths: []string{filepath.Join(f.Root, "src")}, Session: "s1",
		ToolUseID: "tu1", Tool: "Bash", Command: "rm -rf src # \x1b[2J"})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(f.Root, "src"))

	code, out, errOut := runCLI(t, "checkpoints", "--dir", f.Root)
	if code != 0 || !strings.Contains(out, ck.ID) || !strings.Contains(out, "rm -rf src") || strings.Contains(out, "\x1b") {
		t.Errorf("table: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCLI(t, "checkpoints", "--dir", f.Root, "--json", "--session", "other")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("other session: %d %q", code, out)
	}
	code, out, _ = runCLI(t, "checkpoints", "--dir", f.Root, "--json", "--session", "s1")
	var list []checkpoint.Checkpoint
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].ToolUseID != "tu1" {
		t.Errorf("json: %d %q", code, out)
	}

	code, out, _ = runCLI(t, "restore", "--dir", f.Root, "--checkpoint", ck.ID)
	if code != 0 || !strings.Contains(out, "dry run") || !strings.Contains(out, src) {
		t.Errorf("dry run: %d %q", code, out)
	}
	if _, err := os.Lstat(src); !os.IsNotExist(err) {
		t.Fatal("the dry run restored")
	}
	for _, args := range [][]string{
		{"restore", "--dir", f.Root, "--checkpoint", "20200101-000000-00000000"},
		{"restore", "--dir", f.Root, "--checkpoint", "../../x"},
		{"restore", "--dir", f.Root, "--checkpoint", ck.ID, "--all"},
	} {
		if code, out, errOut := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s %s", args, code, exitUsage, out, errOut)
		}
	}
	if code, out, errOut := runCLI(t, "restore", "--dir", f.Root, "--checkpoint", ck.ID, "--yes"); code != 0 {
		t.Fatalf("restore: %d %s %s", code, out, errOut)
	}
	if data, _ := os.ReadFile(src); string(data) != "kept" {
		t.Errorf("restored %q", data)
	}
}
