package approver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// TestPlantedRequestIsAssessedNotBelieved: a request planted by the jail
// claims to come from the human's own `sandbox request` (source cli), with
// reasons saying the policy allows it, and asks for the sandbox's own
// secrets. Assess shows the recomputed decision and marks the origin
// unverified; approving it is refused at execution, nothing is read or
// written, and the refusal is audited.
func TestPlantedRequestIsAssessedNotBelieved(t *testing.T) {
	tf := newTestFolder(t)
	key := filepath.Join(tf.st.Dir, "key")
	link := filepath.Join(tf.f.Root, "notes.txt")
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	content := "x"
	tests := []struct {
		name string
		req  *queue.Request
	}{
		{"read the per-user key", &queue.Request{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: key}}},
		{"read the key through a link in the project", &queue.Request{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: link}}},
		{"read the audit log", &queue.Request{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: filepath.Join(tf.f.Audit(), "audit.jsonl")}}},
		{"write the policy", &queue.Request{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: tf.f.Policy(), Content: &content}}},
		{"write through .SANDBOX case", &queue.Request{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: filepath.Join(tf.f.Root, ".SANDBOX", "x"), Content: &content}}},
		{"cat the key", &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: "cat " + key + " > out.txt"}}},
		{"argv into results", &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Argv: []string{"cp", ".sandbox/results/a.log", "out.txt"}}}},
	}
	ap := tf.approver(t, SurfaceCLI, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Source, req.Agent, req.Justification = queue.SourceCLI, "human", "routine check, already allowed"
			req.PolicyReasons = []string{"allowed by rule `git status`"}
			req = tf.submit(t, req)

			as := Assess(nil, tf.f, req)
			if as.Refused == "" {
				t.Errorf("Assess does not say it will be refused: %+v", as)
			}
			if as.Origin != UnverifiedOrigin || !strings.Contains(as.Claims, "not verified") {
				t.Errorf("origin shown as %q / %q", as.Origin, as.Claims)
			}
			if slices.Contains(as.Decision.Reasons, req.PolicyReasons[0]) {
				t.Errorf("the file's own reasons were shown: %v", as.Decision.Reasons)
			}

			res, err := ap.Approve(context.Background(), req.ID, ApproveOptions{ShownHash: req.Hash})
			if !errors.Is(err, ErrSelfProtected) {
				t.Fatalf("Approve = %+v, %v; want ErrSelfProtected", res, err)
			}
			if res == nil || res.Decision != queue.Denied || res.Stdout != "" {
				t.Errorf("result %+v", res)
			}
			if _, err := os.Lstat(tf.f.ResultLog(req.ID)); err == nil {
				t.Error("a result log was written")
			}
			if got := events(tf.verifyAudit(t), req.ID); !slices.Contains(got, "request.refused:denied") || slices.Contains(got, "request.approved:approved") {
				t.Errorf("audit events %v", got)
			}
		})
	}
	if b, _ := os.ReadFile(tf.f.Policy()); string(b) == content {
		t.Error("the policy was written")
	}
	if _, err := os.Stat(filepath.Join(tf.f.Root, "out.txt")); err == nil {
		t.Error("a refused command ran")
	}
}

// TestAssessRecomputesReasons: an ordinary request is assessed by the
// policy in force, whatever reasons the file carries, and still runs.
func TestAssessRecomputesReasons(t *testing.T) {
	tf := newTestFolder(t)
	e, err := policy.New(tf.f.Root, nil, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req := tf.script(t, "echo hi | tee out.txt")
	req.PolicyReasons = []string{"planted reason"}
	as := Assess(e, tf.f, req)
	if as.Refused != "" || len(as.Decision.Parts) == 0 || slices.Contains(as.Decision.Reasons, "planted reason") {
		t.Fatalf("assessment %+v", as)
	}
	ap := tf.approver(t, SurfaceCLI, nil)
	if res, err := ap.Approve(context.Background(), req.ID, ApproveOptions{}); err != nil || res.Decision != queue.Approved {
		t.Fatalf("Approve = %+v, %v", res, err)
	}
}

// In an agent's worktree (a folder inside MAIN's .sandbox/), what the
// human approves for the agent's own files runs; MAIN's .sandbox/, the
// other agents' worktrees and the worktree's own .sandbox/ are still
// refused, by any path that reaches them.
func TestSelfProtectedInAnAgentWorktree(t *testing.T) {
	main, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(main, ".sandbox", "worktrees", "bob")
	alice := filepath.Join(main, ".sandbox", "worktrees", "alice")
	for _, d := range []string{filepath.Join(root, ".sandbox"), filepath.Join(root, "src"), alice} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(main, ".sandbox"), filepath.Join(root, "src", "up")); err != nil {
		t.Fatal(err)
	}
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	content := "x"
	write := func(p string) *queue.Request {
		return &queue.Request{Kind: queue.KindWrite, Write: &queue.WritePayload{Path: p, Content: &content}}
	}
	read := func(p string) *queue.Request {
		return &queue.Request{Kind: queue.KindRead, Read: &queue.ReadPayload{Path: p}}
	}
	for _, req := range []*queue.Request{write(filepath.Join(root, "src", "a.go")), read(filepath.Join(root, "README.md")),
		{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: "cat " + filepath.Join(root, "src", "a.go")}}} {
		if why := SelfProtected(f, req); why != "" {
			t.Errorf("%+v in its own worktree refused: %s", req, why)
		}
	}
	for _, req := range []*queue.Request{
		write(filepath.Join(root, ".sandbox", "policy.yaml")), write(filepath.Join(main, ".sandbox", "policy.yaml")),
		write(filepath.Join(alice, "a.go")), write(filepath.Join(root, "..", "alice", "a.go")),
		write(filepath.Join(root, "src", "up", "policy.yaml")), read(filepath.Join(root, "src", "up", "audit", "audit.jsonl")),
		{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: "echo x > " + filepath.Join(alice, "a.go")}},
	} {
		if why := SelfProtected(f, req); why == "" {
			t.Errorf("%+v from bob's worktree not refused", req)
		}
	}
}
