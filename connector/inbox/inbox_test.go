package inbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// fakeRepo is MAIN with agent worktree folders made directly (no git, no
// spawn): what the registry's records would point at.
func fakeRepo(t *testing.T, names ...string) folder.Folder {
	t.Helper()
	main := testenv.Folder(t, t.TempDir())
	for _, n := range names {
		if err := os.MkdirAll(filepath.Join(main.Worktrees(), n, folder.DirName), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return main
}

func TestAgentFolder(t *testing.T) {
	t.Parallel()
	main := fakeRepo(t, "alice", "bob")
	elsewhere := t.TempDir()
	os.MkdirAll(filepath.Join(elsewhere, folder.DirName), 0o755)
	// A worktree folder that is a link, even to another agent's worktree
	// inside MAIN, is not followed.
	if err := os.Symlink(filepath.Join(main.Worktrees(), "bob"), filepath.Join(main.Worktrees(), "carol")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(main.Worktrees(), "dave")); err != nil {
		t.Fatal(err)
	}
	// A worktree whose own .sandbox/ is a link.
	os.MkdirAll(filepath.Join(main.Worktrees(), "erin"), 0o755)
	if err := os.Symlink(filepath.Join(elsewhere, folder.DirName), filepath.Join(main.Worktrees(), "erin", folder.DirName)); err != nil {
		t.Fatal(err)
	}
	wt := func(n string) string { return filepath.Join(main.Worktrees(), n) }
	for _, tc := range []struct {
		name, agent, worktree string
		ok                    bool
	}{
		{"its own worktree", "alice", wt("alice"), true},
		{"unclean path to it", "alice", wt("alice") + "/./", true},
		{"outside MAIN", "alice", elsewhere, false},
		{"another agent's worktree", "alice", wt("bob"), false},
		{"dot dot", "..", filepath.Join(main.Worktrees(), ".."), false},
		{"a path as name", "x/../alice", wt("alice"), false},
		{"symlink to a sibling", "carol", wt("carol"), false},
		{"symlink outside", "dave", wt("dave"), false},
		{"its .sandbox a link", "erin", wt("erin"), false},
		{"missing", "frank", wt("frank"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := AgentFolder(main, tc.agent, tc.worktree)
			if tc.ok != (err == nil) {
				t.Fatalf("AgentFolder(%q, %q) = %v, %v", tc.agent, tc.worktree, f, err)
			}
			if tc.ok && f.Root != wt(tc.agent) {
				t.Fatalf("root %q", f.Root)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		state   string
		pending int
		want    string
	}{
		{"running", 0, Running},
		{"starting", 0, Running},
		{"running", 2, Waiting},
		{"idle", 0, Idle},
		{"idle", 1, Waiting},
		{"waiting", 0, Waiting},
		{"done", 3, Done},
		{"failed", 0, Failed},
		{"stopped", 1, Stopped},
	} {
		if got := Status(tc.state, tc.pending); got != tc.want {
			t.Errorf("Status(%q, %d) = %q, want %q", tc.state, tc.pending, got, tc.want)
		}
	}
}

func shell(cwd, script string) *queue.Request {
	r := &queue.Request{Kind: queue.KindShell, Shell: &queue.ShellPayload{Shell: "bash", Script: script}, Cwd: cwd}
	r.Hash = r.ComputeHash()
	return r
}

func TestBatchKey(t *testing.T) {
	t.Parallel()
	a, b := "/repo/.sandbox/worktrees/a", "/repo/.sandbox/worktrees/b"
	same1, same2 := shell(a+"/web", "npm ci"), shell(b+"/web", "npm ci")
	if same1.Hash == same2.Hash {
		t.Fatal("the content hashes should differ (each names its cwd)")
	}
	if BatchKey(a, same1) != BatchKey(b, same2) {
		t.Error("the same request in two worktrees has two batch keys")
	}
	if BatchKey(a, same1) == BatchKey(b, shell(b+"/web", "npm ci --force")) {
		t.Error("different commands share a batch key")
	}
	if BatchKey(a, same1) == BatchKey(b, shell(b, "npm ci")) {
		t.Error("different relative cwds share a batch key")
	}
	// A cwd outside its folder stays absolute: /tmp in two agents is the
	// same /tmp, while ../x of two folders is not the same place.
	if BatchKey(a, shell("/tmp", "ls")) != BatchKey(b, shell("/tmp", "ls")) {
		t.Error("an absolute cwd outside both folders")
	}
	if BatchKey(a, shell("/repo/.sandbox/worktrees/x", "ls")) != BatchKey(b, shell("/repo/.sandbox/worktrees/x", "ls")) {
		t.Error("a sibling folder as cwd is one place")
	}
	if again := shell(a+"/web", "npm ci"); BatchKey(a, same1) != BatchKey(a, again) {
		t.Error("not stable")
	}
}
