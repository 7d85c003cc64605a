//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// gitProject is an accepted-policy project that is a git repository
// with one commit and a bare remote "origin" inside the project (the
// grant jail writes the project).
func gitProject(t *testing.T) string {
	t.Helper()
	requireRunJail(t)
	testenv.RequireCommand(t, "git")
	root := project(t, true)
	for _, args := range [][]string{
		{"init", "-q", "-b", "master"}, {"init", "-q", "--bare", "remote.git"},
		{"remote", "add", "origin", filepath.Join(root, "remote.git")},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "c"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// approveIn submits `git push origin master` from dir through `sandbox
// request` and approves it with `sandbox approve`, the real approver path.
func approveIn(t *testing.T, root, dir string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := sandboxCmd(t, dir, "request", "--wait", "60s", "--script", "git push origin master")
	out, errt := started(t, cmd)
	errt.waitFor(t, "waiting for approval", 1)
	m := requestIDRe.FindStringSubmatch(errt.String())
	if m == nil {
		t.Fatalf("no request id in %q", errt.String())
	}
	hash := ""
	for _, it := range list(t, root, "--state", "pending") {
		if it.ID == m[1] {
			hash = it.Hash
		}
	}
	code, stdout, stderr = run(t, root, "approve", "--hash", hash, m[1])
	exitOf(t, cmd)
	_ = out
	return code, stdout, stderr
}

// TestApprovedGitPushRunsNoPlantedHook: the agent planted .git/commondir
// pointing at a directory of its own with a pre-push hook that writes
// into .sandbox/; the human approves `git push origin master`. The
// broker refuses the repository (commondir) and no hook runs.
func TestApprovedGitPushRunsNoPlantedHook(t *testing.T) {
	t.Parallel()
	root := gitProject(t)
	evil := filepath.Join(root, "evil")
	marker := filepath.Join(root, ".sandbox", "pwned")
	os.MkdirAll(filepath.Join(evil, "hooks"), 0o755)
	os.WriteFile(filepath.Join(evil, "config"), []byte("[core]\n\thooksPath = "+filepath.Join(evil, "hooks")+"\n"), 0o644)
	os.WriteFile(filepath.Join(evil, "hooks", "pre-push"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "commondir"), []byte(evil+"\n"), 0o644)
	code, out, errs := approveIn(t, root, root)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the planted pre-push hook ran (exit %d)\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs+out, "commondir") {
		t.Errorf("no refusal naming commondir: exit %d\n%s%s", code, out, errs)
	}
}

// TestApprovedGitInNestedRepoRefused: a nested repository sub/.git whose
// config runs core.fsmonitor, and a request whose cwd is sub: refused,
// and the fsmonitor never runs.
func TestApprovedGitInNestedRepoRefused(t *testing.T) {
	t.Parallel()
	root := gitProject(t)
	sub := filepath.Join(root, "sub")
	marker := filepath.Join(root, "fsmonitor-ran")
	cmd := exec.Command("git", "init", "-q", sub)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	f, _ := os.OpenFile(filepath.Join(sub, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\tfsmonitor = \"touch " + marker + "; false\"\n")
	f.Close()
	code, out, errs := approveIn(t, root, sub)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the nested repository's fsmonitor ran (exit %d)\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs+out, "nested repository") {
		t.Errorf("no refusal naming the nested repository: exit %d\n%s%s", code, out, errs)
	}
}

// TestApprovedGitPushRuns: without planted files, the approved push runs
// (in its grant jail) and reaches the remote.
func TestApprovedGitPushRuns(t *testing.T) {
	t.Parallel()
	root := gitProject(t)
	code, out, errs := approveIn(t, root, root)
	if code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	cmd := exec.Command("git", "--git-dir", filepath.Join(root, "remote.git"), "rev-parse", "master")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the push did not reach the remote: %v %s", err, b)
	}
}

// TestApprovedGitPushIgnoresPlantedConfig: the repository's own config
// (agent-writable in connector mode) names a hooks directory of the
// agent's with a pre-push hook, and a pager; the approved push runs and
// neither does.
func TestApprovedGitPushIgnoresPlantedConfig(t *testing.T) {
	t.Parallel()
	root := gitProject(t)
	marker := filepath.Join(root, "hook-ran")
	hooks := filepath.Join(root, "evilhooks")
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "pre-push"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	f, _ := os.OpenFile(filepath.Join(root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("[core]\n\thooksPath = " + hooks + "\n\tfsmonitor = \"touch " + marker + "; false\"\n")
	f.Close()
	code, out, errs := approveIn(t, root, root)
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a hook or fsmonitor from the repository's config ran (exit %d)\n%s%s", code, out, errs)
	}
	if code != 0 {
		t.Errorf("approve: exit %d\n%s%s", code, out, errs)
	}
}

// TestApprovedLocalPushIsContained: origin is a bare repository inside
// the project (the jail writes it) whose pre-receive hook the agent
// planted, and the human approves `git push origin master`. Git's local
// transport runs the receiving repository's hooks in a child that drops
// the command-line settings the broker pins, so the hook may run; but a
// push to a repository on this machine needs no network and no
// credentials, and its grant has neither: the hook cannot reach a
// service on the host, and the push itself lands.
func TestApprovedLocalPushIsContained(t *testing.T) {
	t.Parallel()
	root := gitProject(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	marker := filepath.Join(root, "remote-hook")
	hook := filepath.Join(root, "remote.git", "hooks", "pre-receive")
	script := fmt.Sprintf("#!/bin/bash\nif (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null; then echo reached > %s; else echo contained > %s; fi\n", port, marker, marker)
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := approveIn(t, root, root)
	if b, _ := os.ReadFile(marker); strings.TrimSpace(string(b)) == "reached" {
		t.Fatalf("the planted hook of the in-project remote reached the host's network (exit %d)\n%s%s", code, out, errs)
	}
	if code != 0 {
		t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
	}
	head, err := exec.Command("git", "-C", filepath.Join(root, "remote.git"), "rev-parse", "master").CombinedOutput()
	if err != nil {
		t.Fatalf("the push did not land: %v\n%s", err, head)
	}
}
