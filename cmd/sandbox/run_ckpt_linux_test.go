package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// ckptPolicy allows the test's calls, so that only checkpoints decide.
const ckptPolicy = "version: 1\nhook:\n  wait: 1s\nshell:\n  allow:\n    - \"rm **\"\n    - \"ls **\"\n" +
	"write:\n  allow: [\"**\"]\nread:\n  allow: [\"/**\"]\n"

// jailedHooks runs, under `sandbox run` (the real jail, private /tmp),
// the real Claude Code hook once per event, in order, and returns the
// jailed script's output. Between events it lists the supervisor's
// answers into ROOT/answers.N, and tries to forge one.
func jailedHooks(t *testing.T, bin, root string, events ...map[string]any) string {
	t.Helper()
	// the test binary's directory is under the host's /tmp, which the
	// jail replaces: the hook runs from a copy inside the project
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	mustWriteFile(t, filepath.Join(root, "tools", "sandbox"), string(data))
	os.Chmod(filepath.Join(root, "tools", "sandbox"), 0o755)
	var script strings.Builder
	for i, ev := range events {
		data, _ := json.Marshal(ev)
		name := filepath.Join(root, "tools", "ev"+string(rune('0'+i))+".json")
		mustWriteFile(t, name, string(data))
		script.WriteString("tools/sandbox hook claude < " + name + "; echo; ")
		script.WriteString("ls .sandbox/escalations/kept > tools/answers" + string(rune('0'+i)) + "; ")
	}
	script.WriteString("echo forged > .sandbox/escalations/kept/forged.json 2>/dev/null && echo FORGED; true")
	cmd := exec.Command(bin, "run", "--quiet", "--dir", root, "--", "sh", "-c", script.String())
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sandbox run: %v\n%s", err, out)
	}
	return string(out)
}

// ckptProject is runProject with the whole bus layout (the shims' policy
// cache needs .sandbox/shims) and ckptPolicy accepted.
func ckptProject(t *testing.T, bin string) string {
	t.Helper()
	root := runProject(t)
	f, err := folder.New(root)
	if err == nil {
		err = f.Create()
	}
	if err != nil {
		t.Fatal(err)
	}
	acceptPolicy(t, bin, root, ckptPolicy)
	return root
}

func bashEvent(root, command, id string) map[string]any {
	return map[string]any{"session_id": "s1", "cwd": root, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_use_id": id}
}

// Run mode's checkpoints, through the real binary and the real jail: the
// jailed hook allowing `rm -rf src` has the supervisor keep src first,
// `sandbox checkpoints` outside the jail lists it, and `sandbox restore
// --checkpoint ID --yes` brings src back byte for byte after the rm. A
// jailed Write is kept too. A call that writes nothing does not touch the bus, and the jail cannot
// write an answer.
func TestRunModeCheckpointRestores(t *testing.T) {
	requireRunJail(t)
	bin := sandboxBinary(t)
	root := ckptProject(t, bin)
	files := map[string]string{"src/main.go": "package main\n", "src/lib/a.txt": "a\x00b\n", "src/run.sh": "#!/bin/sh\n"}
	for p, c := range files {
		mustWriteFile(t, filepath.Join(root, p), c)
	}
	os.Chmod(filepath.Join(root, "src/run.sh"), 0o755)

	write := map[string]any{"session_id": "s1", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "src/main.go"), "content": "x"}, "tool_use_id": "toolu_w"}
	out := jailedHooks(t, bin, root, bashEvent(root, "ls -la", "toolu_ls"), write, bashEvent(root, "rm -rf src", "toolu_rm"))
	if strings.Count(out, `"permissionDecision":"allow"`) != 3 {
		t.Fatalf("want three allows:\n%s", out)
	}
	if strings.Contains(out, "FORGED") {
		t.Errorf("the jail wrote into the supervisor's answers:\n%s", out)
	}
	if a, _ := os.ReadFile(filepath.Join(root, "tools", "answers0")); len(a) != 0 {
		t.Errorf("`ls` asked the supervisor: answers %q", a)
	}
	if a, _ := os.ReadFile(filepath.Join(root, "tools", "answers2")); strings.Count(string(a), ".json") != 2 {
		t.Errorf("Write and `rm -rf src`: answers %q, want two", a)
	}

	byCall := map[string]checkpoint.Checkpoint{}
	for _, ck := range checkpointsJSON(t, bin, root) {
		byCall[ck.ToolUseID] = ck
	}
	w, rm := byCall["toolu_w"], byCall["toolu_rm"]
	if len(byCall) != 2 || strings.Join(w.Targets, ",") != "src/main.go" || rm.Command != "rm -rf src" || rm.Files != 3 {
		t.Fatalf("checkpoints: %+v", byCall)
	}
	if err := os.RemoveAll(filepath.Join(root, "src")); err != nil { // the allowed call runs
		t.Fatal(err)
	}
	if o, err := exec.Command(bin, "restore", root, "--checkpoint", rm.ID, "--yes").CombinedOutput(); err != nil {
		t.Fatalf("restore: %v\n%s", err, o)
	}
	for p, c := range files {
		if got, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(got) != c {
			t.Errorf("%s: %q, %v; want %q", p, got, err, c)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "src/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("src/run.sh mode: %v, %v", fi, err)
	}
}

// When the supervisor cannot keep the checkpoint (its store is not a
// directory), the jailed hook escalates the allowed `rm -rf src` instead
// of letting it through unkept, as connector mode does.
func TestRunModeCheckpointFailureEscalates(t *testing.T) {
	requireRunJail(t)
	bin := sandboxBinary(t)
	root := ckptProject(t, bin)
	mustWriteFile(t, filepath.Join(root, "src", "main.go"), "package main\n")
	dirs, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "sandbox", "folders", "*"))
	if len(dirs) != 1 {
		t.Fatalf("per-user folder dirs: %v", dirs)
	}
	mustWriteFile(t, filepath.Join(dirs[0], "checkpoints"), "not a store")
	out := jailedHooks(t, bin, root, bashEvent(root, "rm -rf src", "toolu_rm"))
	if strings.Contains(out, `"permissionDecision":"allow"`) || !strings.Contains(out, "could not keep a checkpoint") {
		t.Errorf("want an escalation that says the checkpoint failed:\n%s", out)
	}
}

func checkpointsJSON(t *testing.T, bin, root string) []checkpoint.Checkpoint {
	t.Helper()
	cmd := exec.Command(bin, "checkpoints", "--dir", root, "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("checkpoints: %v\n%s", err, stderr.String())
	}
	var list []checkpoint.Checkpoint
	if err := json.Unmarshal(stdout.Bytes(), &list); err != nil {
		t.Fatalf("checkpoints --json %q: %v", stdout.String(), err)
	}
	return list
}
