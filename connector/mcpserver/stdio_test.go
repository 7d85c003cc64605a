package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// stdioClient starts the server as a separate process (this test binary
// re-executed, serving like `sandbox mcp DIR`) and connects over stdio.
func (fx *fixture) stdioClient() *testClient {
	fx.t.Helper()
	c, err := client.NewStdioMCPClient(os.Args[0], []string{serveVar + "=" + fx.f.Root}, "-test.run=^$")
	if err != nil {
		fx.t.Fatal(err)
	}
	return initClient(fx.t, c)
}

func TestStdioServesEveryTool(t *testing.T) {
	fx := newFixture(t)
	c := fx.stdioClient()
	tools, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	if o := outcome(t, c.call(t, ToolRun, map[string]any{"command": "echo over stdio", "reason": "r"}, nil)); o.Stdout != "over stdio\n" {
		t.Errorf("run_privileged %+v", o)
	}
	if st, _ := status(t, c); st.Folder != fx.f.Root || st.Policy.State != "accepted" {
		t.Errorf("status %+v", st)
	}
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	fx.approver(func(*queue.Request) string { return "" })
	res := c.call(t, ToolRun, map[string]any{"command": escalating, "reason": "r"}, "p")
	if o := outcome(t, res); o.Status != string(queue.Approved) || o.Stdout != "MARKER-1\n" {
		t.Errorf("escalated %+v", o)
	}
	// Notifications travel apart from responses: the first may land just
	// after the result.
	testenv.WaitFor(t, "a progress notification over stdio", func() bool { return len(c.progress()) > 0 })
}

// A client that goes away while a call waits for a human leaves no
// process behind; the request stays pending, and answerable later with
// check_request (the documented choice: a human may still be reading it).
func TestClientDisconnectWhileWaiting(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	c := fx.stdioClient()
	errc := make(chan error, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = ToolRun
		req.Params.Arguments = map[string]any{"command": escalating, "reason": "r", "wait_seconds": 600}
		_, err := c.CallTool(context.Background(), req)
		errc <- err
	}()
	var id string
	testenv.WaitFor(t, "the request", func() bool {
		p, _ := fx.q.Pending()
		if len(p) == 1 {
			id = p[0].ID
		}
		return id != ""
	})
	if err := c.Close(); err != nil {
		t.Fatalf("the server did not exit when its client went away: %v", err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the call succeeded after the client closed")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not end")
	}
	if _, err := os.Stat(filepath.Join(fx.f.Root, "runs.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran without a decision")
	}
	p, _ := fx.q.Pending()
	if len(p) != 1 || p[0].ID != id {
		t.Fatalf("pending after the disconnect: %+v", p)
	}
	// A new session picks the request up.
	c2 := fx.client()
	if o := outcome(t, c2.call(t, ToolCheck, map[string]any{"id": id, "wait_seconds": 0}, nil)); o.Status != StatusPending {
		t.Fatalf("check %+v", o)
	}
	fx.approver(func(*queue.Request) string { return "" })
	if o := outcome(t, c2.call(t, ToolCheck, map[string]any{"id": id, "wait_seconds": 60}, nil)); o.Status != string(queue.Approved) || o.Stdout != "MARKER-1\n" {
		t.Fatalf("check after approval %+v", o)
	}
}

// A client that cancels a waiting call (notifications/cancelled) gets
// its answer no more; the server stays up and the request pending.
func TestClientCancelsWhileWaiting(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(filepath.Join(fx.f.Root, "data.txt"), []byte("x"), 0o644)
	c := fx.stdioClient()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = ToolRun
	req.Params.Arguments = map[string]any{"command": escalating, "reason": "r", "wait_seconds": 600}
	if _, err := c.CallTool(ctx, req); err == nil {
		t.Fatal("the call returned before a decision")
	}
	st, _ := status(t, c)
	if len(st.Pending) != 1 {
		t.Fatalf("pending %+v", st.Pending)
	}
}
