package policy

import (
	"sync"
	"testing"
)

// TestIndexesBuiltConcurrently: the per-trigger indexes are built on
// first use; an engine shared by goroutines (the MCP server, serve)
// decides the same way from each of them, whichever builds an index.
func TestIndexesBuiltConcurrently(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	decide := func() map[string]Tier {
		return map[string]Tier{
			"shell":   e.Shell("git status", env.root).Decision,
			"write":   e.Write(".sandbox/policy.yaml", env.root).Decision,
			"read":    e.Read("README.md", env.root).Decision,
			"network": e.Network("169.254.169.254:80").Decision,
			"mcp":     e.MCP("mcp__x__y").Decision,
		}
	}
	var wg sync.WaitGroup
	got := make([]map[string]Tier, 8)
	for i := range got {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = decide() }()
	}
	wg.Wait()
	want := decide()
	if want["write"] != Deny || want["network"] != Deny {
		t.Fatalf("built-in rules not applied: %v", want)
	}
	for i, g := range got {
		for k, v := range want {
			if g[k] != v {
				t.Errorf("goroutine %d: %s = %v, want %v", i, k, g[k], v)
			}
		}
	}
}
