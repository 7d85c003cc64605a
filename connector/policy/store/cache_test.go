package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
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
