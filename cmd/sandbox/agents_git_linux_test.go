//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// approveIn submits script from dir (a folder) through `sandbox request`
// and approves it there with `sandbox approve`, as a human would.
func (r *agentsRepo) approveIn(dir, script string) (code int, out string) {
	r.t.Helper()
	req := r.cmd("request", "--wait", "60s", "--script", script)
	req.Dir = dir
	var stdout, stderr strings.Builder
	req.Stdout, req.Stderr = &stdout, &stderr
	if err := req.Start(); err != nil {
		r.t.Fatal(err)
	}
	id := ""
	for deadline := time.Now().Add(60 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		list := r.cmd("list", "--json", "--state", "pending", "--dir", dir)
		b, _ := list.Output()
		var items []queue.Summary
		if json.Unmarshal(b, &items) == nil && len(items) == 1 {
			id = items[0].ID
			approve := r.cmd("approve", "--hash", items[0].Hash, "--dir", dir, id)
			approve.Run()
		}
	}
	req.Wait()
	return req.ProcessState.ExitCode(), stdout.String() + stderr.String()
}

// An agent's worktree (a linked worktree: its .git is a file) is a
// repository the broker runs approved git in, pinned to the worktree's
// own dir and the shared repository; once its gitfile is repointed at a
// repository the agent planted (a hook, an fsmonitor), approved git is
// refused and none of that code runs.
func TestAgentsApprovedGitInTheWorktree(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	r := newAgentsRepo(t, "true")
	r.mustSandbox("agents", "spawn", "bob", "--wait", "--", "true")
	wt := r.wt("bob")
	if code, out := r.approveIn(wt, "git commit -q --allow-empty -m approved-in-bob"); code != 0 {
		t.Fatalf("approved commit in the worktree: exit %d\n%s", code, out)
	}
	if head := strings.TrimSpace(r.git("log", "-1", "--format=%s", "sandbox/bob")); head != "approved-in-bob" {
		t.Fatalf("sandbox/bob's head is %q", head)
	}

	evil := filepath.Join(wt, "evil")
	marker := filepath.Join(r.root, "planted-ran")
	for _, args := range [][]string{{"init", "-q", evil}, {"-C", evil, "config", "core.hooksPath", filepath.Join(evil, "hooks")},
		{"-C", evil, "config", "core.fsmonitor", "touch " + marker + "; false"}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.MkdirAll(filepath.Join(evil, "hooks"), 0o755)
	os.WriteFile(filepath.Join(evil, "hooks", "pre-commit"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(evil, ".git")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := r.approveIn(wt, "git commit -q --allow-empty -m planted; git status")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the planted repository's code ran (exit %d)\n%s", code, out)
	}
	if code == 0 || !strings.Contains(out, "no linked worktree") {
		t.Errorf("no refusal of the repointed gitfile: exit %d\n%s", code, out)
	}
}
