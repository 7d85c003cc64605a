package mcpserver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/audit"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

func status(t *testing.T, c *testClient) (Status, *mcp.CallToolResult) {
	t.Helper()
	res := c.call(t, ToolStatus, nil, nil)
	if res.IsError {
		t.Fatalf("sandbox_status: %s", text(res))
	}
	var st Status
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st, res
}

func TestStatusFollowsTheFolder(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	c := fx.client()
	st, res := status(t, c)
	sum := sha256.Sum256(policy.DefaultYAML())
	if st.Folder != fx.f.Root || st.Policy.State != "accepted" || st.Policy.Pending || st.Policy.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("status %+v", st)
	}
	if r := st.Policy.Rules["shell"]; r["allow"] == 0 || r["escalate"] == 0 || r["deny"] == 0 {
		t.Errorf("shell rules %v", r)
	}
	if len(st.Pending) != 0 || len(st.Recent) != 0 || st.Jail.Jailed || !st.Audit.Verifies {
		t.Errorf("status %+v", st)
	}
	mustContain(t, "the status text", text(res), "policy: accepted", "shell: ", "pending requests: 0", "audit: ", "not jailed")

	// A pending request is listed; once decided, it is a recent decision
	// and the audit log has grown and still verifies.
	p := outcome(t, c.call(t, ToolRun, map[string]any{"command": escalating, "reason": "r", "wait_seconds": 0}, nil))
	st, _ = status(t, c)
	if len(st.Pending) != 1 || st.Pending[0].ID != p.ID || st.Pending[0].State != string(queue.StatePending) || st.Pending[0].Source != queue.SourceMCP {
		t.Fatalf("pending %+v", st.Pending)
	}
	fx.approver(func(*queue.Request) string { return "" })
	outcome(t, c.call(t, ToolCheck, map[string]any{"id": p.ID}, nil))
	st, _ = status(t, c)
	if len(st.Pending) != 0 || len(st.Recent) != 1 || st.Recent[0].ID != p.ID || st.Recent[0].State != string(queue.Approved) ||
		st.Recent[0].ExitCode == nil || *st.Recent[0].ExitCode != 0 {
		t.Fatalf("after the decision %+v", st)
	}
	// the broker audits the execution's end just after it publishes the
	// result, so the third record may follow check_request's answer
	for deadline := time.Now().Add(10 * time.Second); st.Audit.Records < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		st, _ = status(t, c)
	}
	if !st.Audit.Verifies || st.Audit.Records < 3 || st.Audit.HeadSeq == 0 || st.Audit.HeadHash == "" {
		t.Errorf("audit %+v", st.Audit)
	}

	// A change to policy.yaml is pending until accepted; the accepted
	// policy stays in force.
	os.WriteFile(fx.f.Policy(), append(policy.DefaultYAML(), []byte("\n# edited\n")...), 0o644)
	st, _ = status(t, c)
	if st.Policy.State != policy.StatusPending.String() || !st.Policy.Pending || st.Policy.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("policy after an edit %+v", st.Policy)
	}
}

func TestStatusInsideTheJail(t *testing.T) {
	fx := newFixture(t, JailVar+"=1")
	st, res := status(t, fx.client())
	if !st.Jail.Jailed || st.Jail.Value != "1" {
		t.Errorf("jail %+v", st.Jail)
	}
	mustContain(t, "the status text", text(res), "inside sandbox run's jail")
}

func TestStatusAuditTampering(t *testing.T) {
	fx := newFixture(t)
	c := fx.client()
	c.call(t, ToolRun, map[string]any{"command": "echo one", "reason": "r"}, nil)
	c.call(t, ToolRun, map[string]any{"command": "echo two", "reason": "r"}, nil)
	if st, _ := status(t, c); !st.Audit.Verifies {
		t.Fatalf("audit %+v", st.Audit)
	}
	dir, err := audit.Dir(fx.f, fx.st)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no audit log")
	}
	b, _ := os.ReadFile(files[0])
	os.WriteFile(files[0], []byte(string(b[:len(b)/2])+"\n"), 0o600)
	if st, _ := status(t, c); st.Audit.Verifies || st.Audit.Problem == "" {
		t.Errorf("a truncated log verifies: %+v", st.Audit)
	}
}

// Inside the jail the per-user state is out of reach: no accepted policy
// can be read, so everything but the built-in denials goes to a human.
func TestJailedWithoutUserStateEscalatesEverything(t *testing.T) {
	fx := newFixture(t, JailVar+"=1")
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "unreachable"))
	c := fx.client()
	o := outcome(t, c.call(t, ToolRun, map[string]any{"command": "echo harmless", "reason": "r", "wait_seconds": 0}, nil))
	if o.Status != StatusPending || o.ID == "" {
		t.Fatalf("outcome %+v", o)
	}
	if o := outcome(t, c.call(t, ToolRun, map[string]any{"command": "rm -rf .sandbox", "reason": "r"}, nil)); o.Status != string(queue.Denied) {
		t.Errorf("a built-in denial inside the jail: %+v", o)
	}
	st, _ := status(t, c)
	if st.Policy.State != "unavailable" || st.Audit.Verifies || !st.Jail.Jailed {
		t.Errorf("status %+v", st)
	}
	// Outside the jail the same failure is an error, not a silent mode.
	fx2 := newFixture(t)
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "unreachable"))
	res := fx2.client().call(t, ToolRun, map[string]any{"command": "echo harmless", "reason": "r"}, nil)
	if !res.IsError || !strings.Contains(text(res), "nothing ran") {
		t.Errorf("outside the jail: %s", text(res))
	}
}
