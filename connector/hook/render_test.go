package hook_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

func TestLongOutputKeepsHeadAndTail(t *testing.T) {
	body := "HEAD-MARK\n" + strings.Repeat("é line of output\n", 3000) + "TAIL-MARK\n"
	f := newFixture(tiers(policy.Escalate, policy.Allow), approved(body))
	out, err := f.core.PreToolUse(context.Background(), bash("make"))
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(out.Reason); n > hook.MaxReason {
		t.Errorf("reason has %d characters, cap %d", n, hook.MaxReason)
	}
	for _, s := range []string{"APPROVED and EXECUTED", "HEAD-MARK", "TAIL-MARK", "characters omitted", "/proj/.sandbox/results/req-1.log"} {
		if !strings.Contains(out.Reason, s) {
			t.Errorf("reason lacks %q", s)
		}
	}
	if !utf8.ValidString(out.Reason) {
		t.Error("reason is not valid UTF-8")
	}
}

func TestExitCodeAndStderr(t *testing.T) {
	f := newFixture(tiers(policy.Escalate, policy.Allow), func(*queue.Request) *queue.Result {
		return &queue.Result{Decision: queue.Approved, ExitCode: exit(3), Stderr: "boom"}
	})
	out, _ := f.core.PreToolUse(context.Background(), bash("false"))
	for _, s := range []string{"exit code 3 (the command itself failed)", "--- stderr ---\nboom"} {
		if !strings.Contains(out.Reason, s) {
			t.Errorf("reason lacks %q:\n%s", s, out.Reason)
		}
	}
	if strings.Contains(out.Reason, "--- stdout ---") {
		t.Error("empty stdout should not be shown")
	}
}

func TestTruncatedResultPointsAtLog(t *testing.T) {
	f := newFixture(tiers(policy.Escalate, policy.Allow), func(*queue.Request) *queue.Result {
		return &queue.Result{Decision: queue.Approved, ExitCode: exit(0), Stdout: "short", StdoutTruncated: true, LogPath: "results/x.log"}
	})
	out, _ := f.core.PreToolUse(context.Background(), bash("cat big"))
	if !strings.Contains(out.Reason, "/proj/.sandbox/results/x.log") {
		t.Errorf("reason does not name the full log:\n%s", out.Reason)
	}
}
