package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

func TestCacheTamperIgnored(t *testing.T) {
	f, st := project(t)
	writePolicy(t, f, polA)
	if err := Accept(f, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	dir, _ := st.FolderDir(f.Root)
	path := filepath.Join(dir, cacheName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no cache written at accept: %v", err)
	}
	// Loosen the cached rule without re-signing: ignored, YAML parsed.
	mustWrite(t, path, strings.Replace(string(data), `"**"`, `"/**"`, 1))
	e, _ := load(t, f, st)
	if d := e.Write("/tmp/x", ""); d.Decision != policy.Escalate {
		t.Errorf("tampered cache applied: %v", d.Decision)
	}
	if d := e.Write("a.go", ""); d.Decision != policy.Allow {
		t.Errorf("policy lost with a bad cache: %v", d.Decision)
	}
	// The load rewrote a good cache.
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Error("bad cache not replaced")
	}
}

// TestAcceptFromReusesCache: a worktree accepting its repository's
// policy gets the repository's compiled cache, signed for itself, and
// only when that cache verifies and is of the same bytes.
func TestAcceptFromReusesCache(t *testing.T) {
	main, st := project(t)
	writePolicy(t, main, polA)
	if err := Accept(main, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	mainDir, _ := st.FolderDir(main.Root)
	cachePath := filepath.Join(mainDir, cacheName)
	good, err := os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	_, goodPayload, _ := strings.Cut(string(good), "\n")
	// a signed cache that parsing would not give: only reuse copies it
	marked := goodPayload + strings.Replace(goodPayload[strings.LastIndex(strings.TrimSuffix(goodPayload, "\n"), "\n")+1:], `"**"`, `"marked/**"`, 1)
	if err := writeCache(mainDir, st, main.Root, []byte(marked)); err != nil {
		t.Fatal(err)
	}
	signed, _ := os.ReadFile(cachePath)
	worktree := func(name string) folder.Folder {
		t.Helper()
		root := filepath.Join(filepath.Dir(main.Root), name)
		mustWrite(t, filepath.Join(root, ".sandbox", "policy.yaml"), polA)
		f, err := folder.New(root)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	payloadOf := func(f folder.Folder) string {
		t.Helper()
		dir, _ := st.FolderDir(f.Root)
		data, err := os.ReadFile(filepath.Join(dir, cacheName))
		if err != nil {
			t.Fatalf("%s: no cache: %v", f.Root, err)
		}
		_, payload, _ := strings.Cut(string(data), "\n")
		return payload
	}

	w := worktree("w1")
	if err := AcceptFrom(main, w, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	if payloadOf(w) != marked {
		t.Errorf("the repository's compiled cache was not reused:\n%s", payloadOf(w))
	}
	e, _ := load(t, w, st) // the cache verifies for the worktree's root
	if e.Status() != policy.StatusAccepted || e.Write("a.go", "").Decision != policy.Allow || e.Write("/tmp/x", "").Decision != policy.Escalate {
		t.Errorf("worktree's policy: %v, a.go %v, /tmp/x %v", e.Status(), e.Write("a.go", "").Decision, e.Write("/tmp/x", "").Decision)
	}

	// A cache loosened without its signature is not carried over: the
	// bytes are parsed.
	mustWrite(t, cachePath, strings.Replace(string(signed), `"**"`, `"/**"`, 1))
	w = worktree("w2")
	if err := AcceptFrom(main, w, st, []byte(polA)); err != nil {
		t.Fatal(err)
	}
	if payloadOf(w) != goodPayload {
		t.Error("a tampered cache was carried over")
	}
	if d := load1(t, w, st).Write("/tmp/x", ""); d.Decision != policy.Escalate {
		t.Errorf("tampered cache applied to the worktree: %v", d.Decision)
	}

	// A cache of other bytes is not either; bytes that do not parse are
	// refused as Accept refuses them.
	mustWrite(t, cachePath, string(good))
	w = worktree("w3")
	if err := AcceptFrom(main, w, st, []byte(polB)); err != nil {
		t.Fatal(err)
	}
	if d := load1(t, w, st).Write("/tmp/x", ""); d.Decision != policy.Allow {
		t.Errorf("polB's /** in the worktree: %v (the cache of polA was used)", d.Decision)
	}
	if err := AcceptFrom(main, worktree("w4"), st, []byte("version: 1\nwrite: [")); err == nil {
		t.Error("an invalid policy was accepted")
	}
}

func load1(t *testing.T, f folder.Folder, st *userstate.State) *policy.Engine {
	t.Helper()
	e, _ := load(t, f, st)
	return e
}
