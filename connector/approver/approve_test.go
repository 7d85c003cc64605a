package approver

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

func TestApproveRunsTheRequestAndRecordsEverything(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	req := tf.script(t, "echo out; echo err >&2; echo ran >> ran.txt; exit 3")
	var mu sync.Mutex
	var live bytes.Buffer
	res, err := a.Approve(context.Background(), req.ID, ApproveOptions{OnOutput: func(_ string, p []byte) {
		mu.Lock()
		live.Write(p)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision != queue.Approved || res.ExitCode == nil || *res.ExitCode != 3 {
		t.Fatalf("result = %+v", res)
	}
	if res.Stdout != "out\n" || res.Stderr != "err\n" {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if res.Approver.User != "tester@test" || res.Approver.Surface != SurfaceCLI {
		t.Errorf("approver = %+v", res.Approver)
	}
	if res.Started.IsZero() || res.Finished.IsZero() || res.Decided.IsZero() || res.LogPath != tf.f.ResultLog(req.ID) {
		t.Errorf("timestamps or log path missing: %+v", res)
	}
	if !strings.Contains(live.String(), "out\n") || !strings.Contains(live.String(), "err\n") {
		t.Errorf("live output = %q", live.String())
	}
	stored, err := tf.q.Result(req.ID)
	if err != nil || stored.Decision != queue.Approved || *stored.ExitCode != 3 {
		t.Fatalf("stored result = %+v, %v", stored, err)
	}
	if got := tf.lines(t, "ran.txt"); len(got) != 1 {
		t.Errorf("ran %d times", len(got))
	}
	got := events(tf.verifyAudit(t), req.ID)
	if !slices.Equal(got, []string{"request.approved:approved", "exec.end:approved"}) {
		t.Errorf("audit events = %v", got)
	}
}

func TestApproveEachKind(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	content := "hello\n"
	target := filepath.Join(tf.f.Root, "dir", "new.txt")
	readable := filepath.Join(tf.f.Root, "readme.txt")
	if err := os.WriteFile(readable, []byte("secret-free text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		req    *queue.Request
		want   queue.Decision
		stdout string
		check  func(t *testing.T, res *queue.Result)
	}{
		{"argv without a shell", &queue.Request{Kind: queue.KindShell,
			Shell: &queue.ShellPayload{Argv: []string{"/bin/echo", "a b", "$HOME"}}}, queue.Approved, "a b $HOME\n", nil},
		{"stdin is fed", &queue.Request{Kind: queue.KindShell,
			Shell: &queue.ShellPayload{Shell: "bash", Script: "cat", Stdin: []byte("from stdin")}}, queue.Approved, "from stdin", nil},
		{"unknown shell fails", &queue.Request{Kind: queue.KindShell,
			Shell: &queue.ShellPayload{Shell: "fish", Script: "echo no"}}, queue.Failed, "", nil},
		{"write", &queue.Request{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: target, Content: &content}},
			queue.Approved, "", func(t *testing.T, res *queue.Result) {
				if data, err := os.ReadFile(target); err != nil || string(data) != content {
					t.Errorf("file = %q, %v", data, err)
				}
				if res.WrittenHash == "" {
					t.Error("no written hash")
				}
			}},
		{"edit", &queue.Request{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: readable,
			Edits: []queue.Edit{{OldString: "text", NewString: "words"}}}}, queue.Approved, "", func(t *testing.T, _ *queue.Result) {
			if data, _ := os.ReadFile(readable); string(data) != "secret-free words\n" {
				t.Errorf("file = %q", data)
			}
		}},
		{"read", &queue.Request{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: filepath.Join(tf.f.Root, "dir", "new.txt")}},
			queue.Approved, "hello\n", nil},
		{"network is recorded", &queue.Request{Kind: queue.KindNetwork,
			Network: &queue.NetworkPayload{Host: "example.com", Port: 443}}, queue.Approved, "", nil},
		{"mcp is recorded", &queue.Request{Kind: queue.KindMCP,
			MCP: &queue.MCPPayload{Tool: "deploy", Arguments: []byte(`{}`)}}, queue.Approved, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tf.submit(t, tc.req)
			res, err := a.Approve(context.Background(), req.ID, ApproveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tc.want {
				t.Fatalf("decision %s (%s), want %s", res.Decision, res.Reason, tc.want)
			}
			if tc.stdout != "" && res.Stdout != tc.stdout {
				t.Errorf("stdout = %q, want %q", res.Stdout, tc.stdout)
			}
			if tc.check != nil {
				tc.check(t, res)
			}
			// Every surface prints the reason after "approved": the
			// reason must not say it again ("approved: approved: …").
			if strings.HasPrefix(strings.ToLower(res.Reason), "approved") {
				t.Errorf("reason %q repeats the decision", res.Reason)
			}
		})
	}
}

func TestApprovedReadNeverFollowsALink(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("TOP SECRET"), 0o600)
	os.Symlink(secret, filepath.Join(tf.f.Root, "link"))
	os.Mkdir(filepath.Join(tf.f.Root, "real"), 0o755)
	os.WriteFile(filepath.Join(tf.f.Root, "real", "f"), []byte("TOP SECRET"), 0o600)
	os.Symlink(filepath.Join(tf.f.Root, "real"), filepath.Join(tf.f.Root, "dirlink"))
	os.Link(secret, filepath.Join(tf.f.Root, "hard"))
	for _, name := range []string{"link", "dirlink/f", "hard"} {
		t.Run(name, func(t *testing.T) {
			req := tf.submit(t, &queue.Request{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: filepath.Join(tf.f.Root, name)}})
			res, err := a.Approve(context.Background(), req.ID, ApproveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != queue.Failed || strings.Contains(res.Stdout, "SECRET") {
				t.Fatalf("result = %+v", res)
			}
		})
	}
}

func TestApproveLosingTheClaim(t *testing.T) {
	tf := newTestFolder(t)
	a := tf.approver(t, SurfaceCLI, nil)
	req := tf.script(t, "true")
	if _, err := a.Approve(context.Background(), req.ID, ApproveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Approve(context.Background(), req.ID, ApproveOptions{}); !errors.Is(err, ErrAlreadyDecided) {
		t.Errorf("second approve: %v, want ErrAlreadyDecided", err)
	}
	if _, err := a.Approve(context.Background(), queue.NewID(), ApproveOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
	if _, err := a.Approve(context.Background(), "../../etc", ApproveOptions{}); !errors.Is(err, ErrBadID) {
		t.Errorf("bad id: %v, want ErrBadID", err)
	}
}
