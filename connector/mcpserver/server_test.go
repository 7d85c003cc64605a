package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// escalating is a command the default policy escalates (chown), with a
// side effect counting its runs.
const escalating = `chown --reference=data.txt data.txt && echo run >> runs.txt && echo MARKER-$(wc -l < runs.txt) && echo warn >&2`

func TestToolsListAndAnnotations(t *testing.T) {
	fx := newFixture(t)
	c := fx.client()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	tests := []struct {
		name                                   string
		readOnly, destructive, idem, openWorld bool
		required                               []string
	}{
		{ToolRun, false, true, false, true, []string{"command", "reason"}},
		{ToolCheck, true, false, true, false, []string{"id"}},
		{ToolStatus, true, false, true, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, ok := tools[tc.name]
			if !ok {
				t.Fatalf("missing; have %v", tools)
			}
			a := tl.Annotations
			if a.ReadOnlyHint == nil || *a.ReadOnlyHint != tc.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != tc.destructive ||
				a.IdempotentHint == nil || *a.IdempotentHint != tc.idem || a.OpenWorldHint == nil || *a.OpenWorldHint != tc.openWorld {
				t.Errorf("annotations %+v", a)
			}
			if strings.Join(tl.InputSchema.Required, ",") != strings.Join(tc.required, ",") {
				t.Errorf("required %v", tl.InputSchema.Required)
			}
			if tl.OutputSchema.Type != "object" || len(tl.OutputSchema.Required) == 0 {
				t.Errorf("output schema %+v", tl.OutputSchema)
			}
		})
	}
	if len(tools) != 3 {
		t.Errorf("%d tools", len(tools))
	}
}

func TestRunAllowedRunsAtOnce(t *testing.T) {
	fx := newFixture(t)
	os.MkdirAll(filepath.Join(fx.f.Root, "sub"), 0o755)
	c := fx.client()
	tests := []struct {
		name, command, cwd, stdout string
		exit                       int
	}{
		{"echo", "echo hello", "", "hello\n", 0},
		{"cwd", "pwd", "sub", filepath.Join(fx.f.Root, "sub") + "\n", 0},
		{"absolute cwd", "pwd", filepath.Join(fx.f.Root, "sub"), filepath.Join(fx.f.Root, "sub") + "\n", 0},
		{"failing", "ls does-not-exist", "", "", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"command": tc.command, "reason": "test"}
			if tc.cwd != "" {
				args["cwd"] = tc.cwd
			}
			res := c.call(t, ToolRun, args, nil)
			o := outcome(t, res)
			if o.Status != StatusAllowed || o.ExitCode == nil || *o.ExitCode != tc.exit || o.Stdout != tc.stdout || o.ID != "" {
				t.Fatalf("outcome %+v", o)
			}
			if res.IsError != (tc.exit != 0) {
				t.Errorf("isError %v for exit %d", res.IsError, tc.exit)
			}
			mustContain(t, "the result", text(res), "ALLOWED by this folder's policy", "exit code")
		})
	}
	if p, _ := fx.q.Pending(); len(p) != 0 {
		t.Errorf("allowed commands were queued: %v", p)
	}
}

func TestRunDeniedByPolicy(t *testing.T) {
	fx := newFixture(t)
	c := fx.client()
	res := c.call(t, ToolRun, map[string]any{"command": "rm -rf .sandbox", "reason": "test"}, nil)
	o := outcome(t, res)
	if !res.IsError || o.Status != string(queue.Denied) || len(o.Reasons) == 0 || o.ExitCode != nil {
		t.Fatalf("isError %v, outcome %+v", res.IsError, o)
	}
	mustContain(t, "the result", text(res), "DENIED by this folder's policy", "Nothing ran", "Why: denied because of")
	if _, err := os.Stat(fx.f.Dir()); err != nil {
		t.Fatal(".sandbox is gone")
	}
}

func TestRunEscalatedApproved(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	seen := fx.approver(func(*queue.Request) string { return "" })
	c := fx.client()
	res := c.call(t, ToolRun, map[string]any{"command": escalating, "reason": "make data.txt private"}, nil)
	o := outcome(t, res)
	if res.IsError || o.Status != string(queue.Approved) || o.ExitCode == nil || *o.ExitCode != 0 || o.ID == "" {
		t.Fatalf("isError %v, outcome %+v\n%s", res.IsError, o, text(res))
	}
	if o.Stdout != "MARKER-1\n" || o.Stderr != "warn\n" || o.DecidedBy != "tester@test via cli" || !strings.HasSuffix(o.LogPath, o.ID+".log") {
		t.Errorf("outcome %+v", o)
	}
	if len(res.Content) != 3 {
		t.Errorf("%d content blocks, want header, stdout, stderr", len(res.Content))
	}
	mustContain(t, "the result", text(res), "APPROVED by tester@test via cli and EXECUTED", "request "+o.ID,
		"--- stdout ---\nMARKER-1", "--- stderr ---\nwarn", "do not run it again")
	reqs := seen()
	if len(reqs) != 1 || reqs[0].Source != queue.SourceMCP || reqs[0].Agent != Agent || reqs[0].Justification != "make data.txt private" ||
		reqs[0].Shell == nil || reqs[0].Shell.Script != escalating || reqs[0].Cwd != fx.f.Root {
		t.Fatalf("requests %+v", reqs)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.f.Root, "runs.txt")); string(b) != "run\n" {
		t.Errorf("runs.txt %q: the command must run exactly once", b)
	}
}

func TestRunEscalatedDeniedOrFailing(t *testing.T) {
	tests := []struct {
		name, command, deny, status, want string
		exit                              int
	}{
		{"human denies", "chown --reference=data.txt data.txt", "not today", "denied", "DENIED by tester@test via cli", -1},
		{"command fails", "chown --reference=data.txt data.txt && echo boom >&2 && exit 3", "", "approved", "exit code 3 (the command itself failed)", 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t)
			os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
			fx.approver(func(*queue.Request) string { return tc.deny })
			res := fx.client().call(t, ToolRun, map[string]any{"command": tc.command, "reason": "r"}, nil)
			o := outcome(t, res)
			if !res.IsError || o.Status != tc.status {
				t.Fatalf("isError %v, outcome %+v", res.IsError, o)
			}
			if tc.exit >= 0 && (o.ExitCode == nil || *o.ExitCode != tc.exit || o.Stderr != "boom\n") {
				t.Errorf("outcome %+v", o)
			}
			if tc.deny != "" && o.Message != tc.deny {
				t.Errorf("message %q", o.Message)
			}
			mustContain(t, "the result", text(res), tc.want)
		})
	}
}

func TestProgressNotificationsWhileWaiting(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	c := fx.client()
	// The human decides only once the client has seen three progress
	// notifications.
	fx.approver(func(*queue.Request) string {
		testenv.WaitFor(t, "three progress notifications", func() bool { return len(c.progress()) >= 3 })
		return ""
	})
	res := c.call(t, ToolRun, map[string]any{"command": escalating, "reason": "r"}, "tok-1")
	o := outcome(t, res)
	if o.Status != string(queue.Approved) {
		t.Fatalf("outcome %+v", o)
	}
	last := -1.0
	for _, n := range c.progress() {
		f := n.Params.AdditionalFields
		p, _ := f["progress"].(float64)
		if f["progressToken"] != "tok-1" || p <= last || f["total"] != float64(DefaultWaitSeconds) ||
			!strings.Contains(f["message"].(string), o.ID) {
			t.Errorf("notification %+v", f)
		}
		last = p
	}
	// Without a token, no progress is sent.
	before := len(c.progress())
	c.call(t, ToolRun, map[string]any{"command": "chown --reference=data.txt data.txt", "reason": "again"}, nil)
	if after := len(c.progress()); after != before {
		t.Errorf("%d progress notifications without a token", after-before)
	}
}

func TestPendingThenCheckRequest(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	c := fx.client()
	res := c.call(t, ToolRun, map[string]any{"command": escalating, "reason": "r", "wait_seconds": 0}, nil)
	o := outcome(t, res)
	if res.IsError || o.Status != StatusPending || o.ID == "" || o.ExitCode != nil {
		t.Fatalf("isError %v, outcome %+v", res.IsError, o)
	}
	mustContain(t, "the pending result", text(res), "WAITING for a human", "check_request", o.ID)
	// Asked again, the same command joins the pending request.
	again := outcome(t, c.call(t, ToolRun, map[string]any{"command": escalating, "reason": "r", "wait_seconds": 0}, nil))
	if again.ID != o.ID {
		t.Errorf("asked again: request %s, want the same %s", again.ID, o.ID)
	}
	if p := outcome(t, c.call(t, ToolCheck, map[string]any{"id": o.ID, "wait_seconds": 0}, nil)); p.Status != StatusPending {
		t.Fatalf("check before the decision: %+v", p)
	}
	fx.approver(func(*queue.Request) string { return "" })
	res = c.call(t, ToolCheck, map[string]any{"id": o.ID, "wait_seconds": 60}, "tok-2")
	done := outcome(t, res)
	if done.Status != string(queue.Approved) || done.Stdout != "MARKER-1\n" || done.ID != o.ID {
		t.Fatalf("check after the decision: %+v", done)
	}
	// A finished request answers at once, with the same result.
	if again := outcome(t, c.call(t, ToolCheck, map[string]any{"id": o.ID}, nil)); again.Stdout != done.Stdout || again.Status != done.Status {
		t.Errorf("second check %+v", again)
	}
}

func TestBadArguments(t *testing.T) {
	fx := newFixture(t)
	c := fx.client()
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolRun, map[string]any{"reason": "r"}, `"command" is required`},
		{ToolRun, map[string]any{"command": "  ", "reason": "r"}, `"command" must not be empty`},
		{ToolRun, map[string]any{"command": 42, "reason": "r"}, `"command" must be a string`},
		{ToolRun, map[string]any{"command": "ls"}, `"reason" is required`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "sudo": true}, `unknown argument(s) "sudo"`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "wait_seconds": -1}, `"wait_seconds" must be a whole number from 0 to 3600`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "wait_seconds": 3601}, `from 0 to 3600`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "wait_seconds": 1.5}, `whole number`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "wait_seconds": "soon"}, `"wait_seconds" must be a number`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "cwd": "/"}, `is outside the project`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "cwd": "../.."}, `is outside the project`},
		{ToolRun, map[string]any{"command": "ls", "reason": "r", "cwd": "missing"}, `"cwd" "missing"`},
		{ToolRun, map[string]any{"command": "ls\x00", "reason": "r"}, `without NUL bytes`},
		{ToolRun, map[string]any{"command": strings.Repeat("x", maxCommand+1), "reason": "r"}, `longer than`},
		{ToolCheck, map[string]any{}, `"id" is required`},
		{ToolCheck, map[string]any{"id": "../../etc/passwd"}, `is not a request id`},
		{ToolCheck, map[string]any{"id": "01abc"}, `there is no request 01abc`},
		{ToolStatus, map[string]any{"verbose": true}, `unknown argument(s) "verbose"`},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) {
			res := c.call(t, tc.tool, tc.args, nil)
			if !res.IsError {
				t.Fatalf("not an error: %s", text(res))
			}
			mustContain(t, "the error", text(res), "sandbox: ", tc.want)
		})
	}
	if p, _ := fx.q.Pending(); len(p) != 0 {
		t.Errorf("bad calls queued requests: %v", p)
	}
}

func TestUnknownToolIsAProtocolError(t *testing.T) {
	c := newFixture(t).client()
	req := mcp.CallToolRequest{}
	req.Params.Name = "run_as_root"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err == nil || res != nil {
		t.Fatalf("res %v, err %v", res, err)
	}
	mustContain(t, "the error", err.Error(), "run_as_root")
}
