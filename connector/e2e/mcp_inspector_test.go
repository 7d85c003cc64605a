package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// inspector runs the MCP Inspector's CLI against `sandbox mcp DIR` and
// returns its standard output (then its standard error) and whether it
// exited 0. The Inspector
// starts the server with a minimal environment, so the per-user state
// dir is passed explicitly.
func (e *env) inspector(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := append([]string{"--cli", "-e", "XDG_STATE_HOME=" + e.state}, args...)
	argv = append(argv, "--", sandboxBin, "mcp", dir)
	cmd := exec.CommandContext(ctx, client(t, "mcp-inspector"), argv...)
	cmd.Env = e.vars("MCP_INSPECTOR_SECRET_STORE=memory")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		t.Fatalf("mcp-inspector %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String() + stderr.String(), err == nil
}

// firstJSON decodes the first JSON value the Inspector printed.
func firstJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.NewDecoder(strings.NewReader(out)).Decode(v); err != nil {
		t.Fatalf("inspector output: %v\n%s", err, out)
	}
}

type inspectorResult struct {
	Content []struct {
		Type, Text string
	}
	StructuredContent map[string]any
	IsError           bool
}

func TestMCPInspectorListsTheTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("mcp", nil)
	out, ok := e.inspector(t, dir, "--method", "tools/list")
	if !ok {
		t.Fatalf("tools/list failed:\n%s", out)
	}
	var res struct {
		Tools []struct {
			Name         string
			InputSchema  struct{ Required []string }
			OutputSchema map[string]any
			Annotations  map[string]any
		}
	}
	firstJSON(t, out, &res)
	want := map[string]struct{ readOnly, destructive, openWorld bool }{
		"run_privileged": {false, true, true}, "check_request": {true, false, false}, "sandbox_status": {true, false, false},
	}
	if len(res.Tools) != len(want) {
		t.Fatalf("%d tools:\n%s", len(res.Tools), out)
	}
	for _, tl := range res.Tools {
		w, ok := want[tl.Name]
		a := tl.Annotations
		if !ok || a["readOnlyHint"] != w.readOnly || a["destructiveHint"] != w.destructive || a["openWorldHint"] != w.openWorld || tl.OutputSchema == nil {
			t.Errorf("tool %+v", tl)
		}
	}
}

func TestMCPInspectorCallsEachTool(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("mcp", map[string]string{"data.txt": "secret\n"})
	e.approver(dir, approveAll)

	out, ok := e.inspector(t, dir, "--method", "tools/call", "--tool-name", "sandbox_status")
	var st inspectorResult
	firstJSON(t, out, &st)
	if !ok || st.IsError || st.StructuredContent["folder"] != dir {
		t.Fatalf("sandbox_status (exit ok %v):\n%s", ok, out)
	}

	out, ok = e.inspector(t, dir, "--method", "tools/call", "--tool-name", "run_privileged",
		"--tool-arg", "command="+escalating, "--tool-arg", "reason=make data.txt private (inspector)")
	var run inspectorResult
	firstJSON(t, out, &run)
	sc := run.StructuredContent
	if !ok || run.IsError || sc["status"] != string(queue.Approved) || sc["exit_code"] != float64(0) ||
		!strings.Contains(sc["stdout"].(string), "OUTPUT-MARKER-1") {
		t.Fatalf("run_privileged (exit ok %v):\n%s", ok, out)
	}
	mustContain(t, "the text content", run.Content[0].Text, "APPROVED by", "EXECUTED outside the agent")
	if got := readFile(t, filepath.Join(dir, "runs.txt")); got != "once\n" {
		t.Errorf("runs.txt = %q", got)
	}

	id := sc["id"].(string)
	out, ok = e.inspector(t, dir, "--method", "tools/call", "--tool-name", "check_request", "--tool-arg", "id="+id)
	var check inspectorResult
	firstJSON(t, out, &check)
	if !ok || check.StructuredContent["status"] != string(queue.Approved) || check.StructuredContent["stdout"] != sc["stdout"] {
		t.Errorf("check_request (exit ok %v):\n%s", ok, out)
	}
}

func TestMCPInspectorErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := e.project("mcp", nil)
	out, ok := e.inspector(t, dir, "--method", "tools/call", "--tool-name", "run_privileged", "--tool-arg", "reason=no command")
	var res inspectorResult
	firstJSON(t, out, &res)
	if ok || !res.IsError || !strings.Contains(res.Content[0].Text, `"command" is required`) {
		t.Errorf("bad arguments (exit ok %v):\n%s", ok, out)
	}
	out, ok = e.inspector(t, dir, "--method", "tools/call", "--tool-name", "become_root")
	if ok || !strings.Contains(out, "become_root") {
		t.Errorf("unknown tool (exit ok %v):\n%s", ok, out)
	}
}
