//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// TestAgentsLandSpawned: an agent spawned for real commits in its jail;
// land asks for its branch head, the CLI approver approves, and the
// broker merges it into MAIN's checked-out branch, MAIN's uncommitted change kept.
func TestAgentsLandSpawned(t *testing.T) {
	t.Parallel()
	requireRunJail(t)
	r := newAgentsRepo(t, "true")
	defer r.stopAll()
	bin := sandboxBinary(t)
	r.mustSandbox("agents", "spawn", "w1", "--headless", "--wait", "--",
		"sh", "-c", "echo work > w.txt && git add w.txt && git commit -qm 'agent work'")
	head := strings.TrimSpace(r.git("rev-parse", "sandbox/w1"))
	if head == r.head {
		t.Fatal("the agent committed nothing")
	}
	os.WriteFile(filepath.Join(r.root, "a.txt"), []byte("uncommitted\n"), 0o644)
	land := exec.Command(bin, "agents", "land", "w1")
	land.Dir, land.Env = r.root, r.env
	var out strings.Builder
	land.Stdout, land.Stderr = &out, &out
	if err := land.Start(); err != nil {
		t.Fatal(err)
	}
	var id, hash string
	testenv.WaitFor(t, "the land request", func() bool {
		ls := exec.Command(bin, "list", "--json", "--state", "pending")
		ls.Dir, ls.Env = r.root, r.env
		b, _ := ls.Output()
		var items []listed
		json.Unmarshal(b, &items)
		for _, it := range items {
			id, hash = it.ID, it.Hash
		}
		return id != ""
	})
	approve := exec.Command(bin, "approve", "--hash", hash, id)
	approve.Dir, approve.Env = r.root, r.env
	if b, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("approve: %v\n%s", err, b)
	}
	if err := land.Wait(); err != nil || !strings.Contains(out.String(), "landed sandbox/w1 at "+head[:12]) {
		t.Fatalf("land: %v\n%s", err, out.String())
	}
	if got := strings.TrimSpace(r.git("rev-parse", "HEAD^2")); got != head {
		t.Fatalf("HEAD^2 = %s, want %s", got, head)
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "a.txt")); string(b) != "uncommitted\n" {
		t.Fatalf("a.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(r.root, "w.txt")); string(b) != "work\n" {
		t.Fatalf("w.txt = %q", b)
	}
}
