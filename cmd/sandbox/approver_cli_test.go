package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

type listed struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	State    string `json:"state"`
	Summary  string `json:"summary"`
	Created  string `json:"created"`
	Decision string `json:"decision"`
	ExitCode *int   `json:"exit_code"`
	Hash     string `json:"hash"`
}

func list(t *testing.T, root string, args ...string) []listed {
	t.Helper()
	code, out, errs := run(t, root, append([]string{"list", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("list: %d %s", code, errs)
	}
	var items []listed
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	return items
}

// The non-interactive commands other tools depend on: list, show,
// approve, deny, result, request, with their exit codes.
func TestApproverCommands(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	if items := list(t, root); len(items) != 0 {
		t.Fatalf("empty folder lists %v", items)
	}
	r1 := startRequest(t, root, "c1", "", "--reason", "needs \x1b[31mcolour\u202e", "--script", "echo out; echo err >&2; exit 3")
	items := list(t, root, "--state", "pending")
	if len(items) != 1 || items[0].ID != r1.id || items[0].Kind != "shell" || items[0].State != "pending" ||
		items[0].Created == "" || !strings.Contains(items[0].Summary, "echo out") {
		t.Fatalf("list = %+v", items)
	}
	code, out, _ := run(t, root, "show", r1.id)
	if code != 0 || !strings.Contains(out, items[0].Hash) || !strings.Contains(out, `\x1b[31mcolour\u202e`) || strings.Contains(out, "\x1b") {
		t.Fatalf("show: %d\n%s", code, out)
	}
	if code, _, _ := run(t, root, "result", r1.id); code != 124 {
		t.Errorf("result of a pending request: exit %d, want 124", code)
	}
	code, out, errs := run(t, root, "approve", r1.id, "--hash", items[0].Hash)
	if code != 0 || out != "out\n" || !strings.Contains(errs, "err\n") || !strings.Contains(errs, "exit code 3") {
		t.Fatalf("approve: %d stdout %q stderr %q", code, out, errs)
	}
	if code := r1.wait(); code != 3 || r1.out.String() != "out\n" {
		t.Errorf("request: exit %d stdout %q", code, r1.out.String())
	}
	code, out, errs = run(t, root, "result", r1.id)
	if code != 3 || out != "out\n" || errs != "err\n" {
		t.Errorf("result: %d %q %q", code, out, errs)
	}
	if code, _, errs := run(t, root, "approve", r1.id, "--hash", items[0].Hash); code == 0 || !strings.Contains(errs, "already decided") {
		t.Errorf("approve twice: %d %s", code, errs)
	}
	if code, _, errs := run(t, root, "approve", r1.id); code == 0 || !strings.Contains(errs, "already decided") {
		t.Errorf("approve twice: %d %s", code, errs)
	}

	r2 := startRequest(t, root, "c2", "", "--", "touch", "denied.txt")
	if code, out, _ := run(t, root, "deny", r2.id, "--reason", "use the build script"); code != 0 || !strings.Contains(out, "denied") {
		t.Errorf("deny: %d %s", code, out)
	}
	if code := r2.wait(); code != 126 || !strings.Contains(r2.err.String(), "use the build script") {
		t.Errorf("denied request: %d %s", code, r2.err.String())
	}
	if code, _, errs := run(t, root, "result", r2.id); code != 126 || !strings.Contains(errs, "denied") {
		t.Errorf("result of a denied request: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "denied.txt")); err == nil {
		t.Error("a denied request ran")
	}
	done := list(t, root, "--state", "done")
	if len(done) != 2 || done[0].Decision == "" || (done[0].ID == r1.id && (done[0].ExitCode == nil || *done[0].ExitCode != 3)) {
		t.Errorf("done = %+v", done)
	}
}

func TestRequestWaitEndsAndCtrlCWithdraws(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	code, _, errs := run(t, root, "request", "--wait", "300ms", "--script", "echo never")
	if code != 124 || !strings.Contains(errs, "withdrawn") {
		t.Errorf("request nobody answered: %d %s", code, errs)
	}
	r := startRequest(t, root, "w2", "", "--script", "echo never")
	items := list(t, root, "--state", "pending")
	if len(items) != 1 || items[0].ID != r.id {
		t.Fatalf("pending = %+v", items)
	}
	r.proc.Signal(syscall.SIGINT)
	if code := r.wait(); code != 130 {
		t.Errorf("request after Ctrl-C: exit %d", code)
	}
	for _, it := range list(t, root) {
		if it.State != "done" || it.Decision != "withdrawn" {
			t.Errorf("after giving up: %+v", it)
		}
	}
}

// Two `sandbox approve` processes racing: exactly one runs the request.
func TestTwoApproveProcessesRace(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	for i := range 5 {
		r := startRequest(t, root, fmt.Sprintf("race%d", i), "", "--script", "echo x >> ran.txt")
		hash := hashOf(t, root, r.id)
		var cmds []*exec.Cmd
		for range 2 {
			c := sandboxCmd(t, root, "approve", r.id, "--hash", hash)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, c)
		}
		ok := 0
		for _, c := range cmds {
			if exitOf(t, c) == 0 {
				ok++
			}
		}
		r.wait()
		data, _ := os.ReadFile(filepath.Join(root, "ran.txt"))
		if ok != 1 || strings.Count(string(data), "x") != i+1 {
			t.Fatalf("round %d: %d approvers succeeded, ran.txt %q", i, ok, data)
		}
	}
}

// The audit log cannot be written: approve refuses with a clear message
// and nothing runs.
func TestApproveRefusedWithoutAudit(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	r := startRequest(t, root, "ro", "", "--script", "echo x >> ran.txt") // audited: the log exists
	hash := hashOf(t, root, r.id)
	testenv.MakeReadOnly(t, auditDir(t, root))
	code, _, errs := run(t, root, "approve", r.id, "--hash", hash)
	if code == 0 || !strings.Contains(errs, "audit") || !strings.Contains(errs, "refused") {
		t.Errorf("approve without audit: %d %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Error("ran without an audit record")
	}
}

// hashOf is the content hash of pending request id, as list --json shows it.
func hashOf(t *testing.T, root, id string) string {
	t.Helper()
	for _, it := range list(t, root, "--state", "pending") {
		if it.ID == id {
			return it.Hash
		}
	}
	t.Fatalf("%s is not pending", id)
	return ""
}
