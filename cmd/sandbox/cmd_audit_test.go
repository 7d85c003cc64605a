package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// auditFolder is a project with n audit records, its per-user state in a
// temp dir, and the path of its live log file.
func auditFolder(t *testing.T, n int) (root, log string) {
	t.Helper()
	f, st := testenv.Project(t)
	testenv.UseState(t, st)
	l, err := audit.Open(f, st)
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := l.Append(audit.Entry{Actor: "cli", Event: "request.created", Decision: "escalate",
			Detail: map[string]any{"script": "echo \x1b[2J\u202e"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	dir, err := audit.Dir(f, st)
	if err != nil {
		t.Fatal(err)
	}
	return f.Root, filepath.Join(dir, audit.LiveFile)
}

func TestAuditVerifyCLI(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, log string)
		code   int
		want   string // in stdout+stderr
	}{
		{"intact", func(*testing.T, string) {}, 0, "audit log OK: 4 records"},
		{"edited", func(t *testing.T, log string) {
			data, _ := os.ReadFile(log)
			os.WriteFile(log, bytes.Replace(data, []byte("escalate"), []byte("allow"), 1), 0o600)
		}, exitAuditBad, "audit.jsonl:1 (seq 1): edited"},
		{"deleted file", func(t *testing.T, log string) { os.Remove(log) }, exitAuditBad, "file missing"},
		{"torn tail", func(t *testing.T, log string) {
			f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(`{"seq":5,"ti`)
			f.Close()
		}, 0, "torn last line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, log := auditFolder(t, 4)
			tc.tamper(t, log)
			code, out, errs := runCLI(t, "audit", "verify", root)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

func TestAuditShowCLI(t *testing.T) {
	root, log := auditFolder(t, 3)
	code, out, errs := runCLI(t, "audit", "show", "--dir", root)
	if code != 0 || strings.Count(out, "\n") != 3 || strings.ContainsAny(out, "\x1b\u202e") ||
		!strings.Contains(out, `\u202e`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCLI(t, "audit", "show", "--json", "--after", "1", root)
	stored, _ := os.ReadFile(log)
	if lines := strings.SplitAfter(string(stored), "\n"); code != 0 || out != lines[1]+lines[2] {
		t.Fatalf("exit %d, --json printed %q, stored %q", code, out, stored)
	}
}
