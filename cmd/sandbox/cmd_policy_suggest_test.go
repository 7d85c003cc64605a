package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

const suggestPolicy = `version: 1
shell:
  allow:
    - "ls **"
  escalate:
    - {pattern: "npm install **", reason: "installs packages"}
    - "git push **"
    - "curl **"
  deny:
    - "rm -rf / **"
`

// approvalLog writes a synthetic audit log of approvals: actor, request
// id, and the escalated parts as the approver records them.
func approvalLog(t *testing.T, root string, recs ...[3]string) {
	t.Helper()
	f, _ := folder.New(root)
	st, err := userstate.Open(true)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := audit.Open(f, st)
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	for i, r := range recs {
		actor, event, argv := r[0], r[1], r[2]
		id := fmt.Sprintf("req-%d", i)
		if strings.HasPrefix(argv, "=") { // the same request id as the record before
			id, argv = fmt.Sprintf("req-%d", i-1), argv[1:]
		}
		detail := map[string]any{"user": "alice@host"}
		if argv != "" {
			detail["parts"] = []map[string]string{{"trigger": "shell", "subject": argv, "rule": "x", "propose": argv}}
		}
		decision := "approved"
		if event == "request.denied" {
			decision = "denied"
		}
		if _, err := lg.Append(audit.Entry{Actor: actor, Event: event, RequestID: id, Decision: decision, Detail: detail}); err != nil {
			t.Fatal(err)
		}
	}
}

func suggestProject(t *testing.T) string {
	t.Helper()
	root := policyProject(t, suggestPolicy)
	if code, _, errw := runCLI(t, "policy", "accept", "--dir", root, "--yes"); code != 0 {
		t.Fatal(errw)
	}
	w, a, d := "approver:watch", "request.approved", "request.denied"
	approvalLog(t, root,
		[3]string{w, a, "npm install left-pad"}, [3]string{"approver:serve", a, "npm install react"},
		[3]string{"approver:cli", a, "npm install left-pad"},
		// CI's automatic approvals teach nothing.
		[3]string{"approver:ci", a, "curl https://x.test/"}, [3]string{"approver:ci", a, "curl https://x.test/"},
		[3]string{"approver:ci", a, "curl https://x.test/"},
		// Approved, then denied first (the deny won): not learned.
		[3]string{w, a, "git push origin main"}, [3]string{w, d, "="},
		[3]string{w, a, "git push origin main"}, [3]string{w, d, "="},
		[3]string{w, a, "git push origin main"}, [3]string{w, d, "="},
	)
	return root
}

func TestPolicySuggestCLI(t *testing.T) {
	root := suggestProject(t)
	code, out, errw := runCLI(t, "policy", "suggest", "--dir", root)
	if code != 0 {
		t.Fatalf("suggest: exit %d: %s", code, errw)
	}
	for _, want := range []string{"shell `npm install **` approved 3 times", "moves the escalate rule `npm install **`",
		`+    - {pattern: "npm install **", reason: "learned: approved 3 times in 1 day"}`, `-    - {pattern: "npm install **", reason: "installs packages"}`,
		"Nothing written"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, not := range []string{"- shell `curl", "- shell `git push", "approved as: `curl", "approved as: `git"} {
		if strings.Contains(out, not) {
			t.Errorf("suggested %q (CI's or denied):\n%s", not, out)
		}
	}
	var rep suggestReport
	if code, out, errw := runCLI(t, "policy", "suggest", "--dir", root, "--json"); code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("suggest --json: %d %s %s", code, out, errw)
	}
	if len(rep.Suggestions) != 1 || rep.Suggestions[0].Pattern != "npm install **" || rep.Suggestions[0].Count != 3 ||
		rep.Suggestions[0].Replaces != "npm install **" || !strings.Contains(rep.Diff, "learned: approved 3 times") || rep.Written {
		t.Errorf("suggest --json: %+v", rep)
	}
	pol := filepath.Join(root, folder.DirName, "policy.yaml")
	if data, _ := os.ReadFile(pol); string(data) != suggestPolicy {
		t.Fatal("suggest without --write changed policy.yaml")
	}

	// --write: a pending change that policy diff shows and accept takes.
	if code, out, errw := runCLI(t, "policy", "suggest", "--dir", root, "--write"); code != 0 || !strings.Contains(out, "Written") {
		t.Fatalf("suggest --write: %d %s %s", code, out, errw)
	}
	if code, out, _ := runCLI(t, "policy", "diff", "--dir", root); code != 0 || !strings.Contains(out, "learned: approved 3 times") {
		t.Errorf("policy diff after --write: %d %s", code, out)
	}
	// A second --write on top of a pending change is refused.
	if code, _, errw := runCLI(t, "policy", "suggest", "--dir", root, "--write"); code != 1 || !strings.Contains(errw, "not accepted") {
		t.Errorf("--write over a pending change: %d %s", code, errw)
	}
	if code, _, errw := runCLI(t, "policy", "accept", "--dir", root, "--yes"); code != 0 {
		t.Fatal(errw)
	}
	f, _ := folder.New(root)
	st, _ := userstate.Open(false)
	e, _, err := store.Load(f, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Argv([]string{"npm", "install", "lodash"}, ""); d.Decision != policy.Allow {
		t.Errorf("npm install after accepting: %v", d.Reasons)
	}
	if d := e.Argv([]string{"git", "push", "origin", "main"}, ""); d.Decision == policy.Allow {
		t.Error("git push allowed after accepting")
	}
	// Learned already: nothing more to suggest.
	if code, out, _ := runCLI(t, "policy", "suggest", "--dir", root); code != 0 || strings.Contains(out, "npm install") {
		t.Errorf("suggest after accepting: %d %s", code, out)
	}
}

// A tampered audit log teaches nothing: suggest refuses.
func TestPolicySuggestRefusesTamperedLog(t *testing.T) {
	root := suggestProject(t)
	logs, _ := filepath.Glob(filepath.Join(auditDir(t, root), "*.jsonl"))
	if len(logs) == 0 {
		t.Fatal("no audit log")
	}
	data, _ := os.ReadFile(logs[0])
	forged := strings.Replace(string(data), "git push origin main", "git push origin evil", 1)
	if forged == string(data) {
		t.Fatal("nothing to tamper with")
	}
	os.WriteFile(logs[0], []byte(forged), 0o600)
	code, out, errw := runCLI(t, "policy", "suggest", "--dir", root, "--write")
	if code != 1 || !strings.Contains(errw, "refusing to learn rules from a log that may be forged") {
		t.Errorf("tampered: exit %d\nout %s\nerr %s", code, out, errw)
	}
	if data, _ := os.ReadFile(filepath.Join(root, folder.DirName, "policy.yaml")); string(data) != suggestPolicy {
		t.Error("policy.yaml changed from a tampered log")
	}
}

// Approvals older than --days teach nothing.
func TestPolicySuggestWindow(t *testing.T) {
	root := suggestProject(t)
	var out, errw strings.Builder
	opts := &suggestOptions{days: 30, min: 3, out: &out, err: &errw,
		now: func() time.Time { return time.Now().Add(31 * 24 * time.Hour) }}
	opts.dir.dir = root
	if err := runPolicySuggest(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "No repeated approvals") {
		t.Errorf("31 days later: %s", out.String())
	}
}
