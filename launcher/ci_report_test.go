package launcher

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

func TestCIEscalationOutcome(t *testing.T) {
	zero, three := 0, 3
	tests := []struct {
		name    string
		res     *queue.Result
		err     error
		approve bool
		want    string
		exit    *int
	}{
		{"approved", &queue.Result{Decision: queue.Approved, ExitCode: &three}, nil, true, "approved", &three},
		{"approved, exit 0", &queue.Result{Decision: queue.Approved, ExitCode: &zero}, nil, true, "approved", &zero},
		{"failed to run", &queue.Result{Decision: queue.Failed, Reason: "no such file"}, nil, true, "failed", nil},
		{"denied", &queue.Result{Decision: queue.Denied}, nil, false, "denied", nil},
		{"deny in place, result later", nil, nil, false, "denied", nil},
		{"withdrawn meanwhile", &queue.Result{Decision: queue.Withdrawn}, errors.New("already decided"), false, "withdrawn", nil},
		{"approval refused", nil, errors.New("audit refused"), true, "error", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e CIEscalation
			e.fill(tc.res, tc.err, tc.approve)
			if e.Outcome != tc.want || (e.ExitCode == nil) != (tc.exit == nil) || (tc.exit != nil && *e.ExitCode != *tc.exit) {
				t.Errorf("outcome %q exit %v", e.Outcome, e.ExitCode)
			}
			if tc.err != nil && !strings.Contains(e.Error, tc.err.Error()) {
				t.Errorf("error %q", e.Error)
			}
		})
	}
}

func TestCIReport(t *testing.T) {
	zero := 0
	esc := []CIEscalation{
		{ID: "a", Kind: "shell", Subject: "npm ci", Outcome: "approved", Rule: "approved by the ci: section", ExitCode: &zero},
		{ID: "b", Kind: "shell", Subject: "git push", Outcome: "denied", Rule: "main is \x1b[31mprotected"},
		{ID: "c", Kind: "network", Subject: "x.org:443", Outcome: "error", Error: "audit refused"},
	}
	r := NewCIReport("/p", []string{"claude", "-p", "x"}, 0, time.Now(), esc)
	if r.Approved != 1 || r.Denied != 1 || r.Failed != 1 || !r.AnyDenied() {
		t.Errorf("counts %+v", r)
	}
	var b strings.Builder
	r.WriteSummary(&b)
	if s := b.String(); !strings.Contains(s, "3 escalation(s): 1 approved, 1 denied, 1 failed") ||
		strings.Contains(s, "\x1b") || !strings.Contains(s, "exit 0; approved by") || !strings.Contains(s, "audit refused") {
		t.Errorf("summary:\n%s", s)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	var back CIReport
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &back); err != nil || len(back.Escalations) != 3 || back.Command[0] != "claude" {
		t.Errorf("report JSON %v:\n%s", err, data)
	}
	if empty := NewCIReport("/p", nil, 0, time.Now(), nil); empty.AnyDenied() || empty.Escalations == nil {
		t.Errorf("empty report %+v", empty)
	}
}
