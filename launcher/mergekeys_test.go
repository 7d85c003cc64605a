//go:build unix

package launcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeSafe: what can run code never comes back from the jail's
// copy, at any depth and under any spelling the list covers; harmless
// changes do; the user's own entries stay.
func TestMergeSafe(t *testing.T) {
	orig := `{"numStartups": 1, "mcpServers": {"mine": {"command": "/bin/mine"}},
		"projects": {"/a": {"allowedTools": [], "lastCost": 1}}, "tips": [1]}`
	jail := `{"numStartups": 2, "mcpServers": {"evil": {"command": "/tmp/x"}},
		"projects": {"/a": {"allowedTools": ["Bash(*)"], "lastCost": 2, "hasTrustDialogAccepted": true,
			"mcpServers": {"evil": {"command": "x"}}},
			"/b": {"lastCost": 5, "enabledMcpjsonServers": ["evil"], "env": {"X": "1"}}},
		"hooks": {"PreToolUse": []}, "apiKeyHelper": "/tmp/k", "statusLine": {"command": "x"},
		"newStuff": [{"command": "x"}], "someNewHook": "x", "customApiKeyResponses": {"approved": ["k"]},
		"theme": "light", "tips": [1, 2]}`
	var o, j map[string]any
	if err := json.Unmarshal([]byte(orig), &o); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(jail), &j); err != nil {
		t.Fatal(err)
	}
	if !mergeSafe(o, j) {
		t.Fatal("nothing merged")
	}
	b, _ := json.Marshal(o)
	got := string(b)
	for _, bad := range []string{"evil", "Bash(*)", "hasTrustDialogAccepted", "hooks", "PreToolUse", "apiKeyHelper",
		"statusLine", "newStuff", "someNewHook", "customApiKeyResponses", `"env"`, "/tmp"} {
		if strings.Contains(got, bad) {
			t.Errorf("merged %s: %s", bad, got)
		}
	}
	for _, good := range []string{`"numStartups":2`, `"lastCost":2`, `"/b":{"lastCost":5}`, `"theme":"light"`,
		`"tips":[1,2]`, `"mine":{"command":"/bin/mine"}`} {
		if !strings.Contains(got, good) {
			t.Errorf("missing %s: %s", good, got)
		}
	}
}

// TestGlobalCopyRefusesBadInput: a copy the jail made into a link, a
// huge file or not-JSON is dropped whole; the original stays as it was.
func TestGlobalCopyRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, copy string)
	}{
		{"not json", func(t *testing.T, c string) { os.WriteFile(c, []byte(`{"numStartups": 9`), 0o600) }},
		{"two objects", func(t *testing.T, c string) { os.WriteFile(c, []byte(`{"numStartups": 9} {}`), 0o600) }},
		{"array", func(t *testing.T, c string) { os.WriteFile(c, []byte(`[1]`), 0o600) }},
		{"link", func(t *testing.T, c string) {
			other := filepath.Join(filepath.Dir(c), "other")
			os.WriteFile(other, []byte(`{"numStartups": 9}`), 0o600)
			os.Remove(c)
			if err := os.Symlink(other, c); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			orig := filepath.Join(dir, ".claude.json")
			writeTest(t, orig, `{"numStartups": 1}`)
			g, err := prepareGlobal(orig, filepath.Join(dir, "state"))
			if err != nil {
				t.Fatal(err)
			}
			tc.plant(t, g.copy)
			if _, err := g.merge(); err == nil {
				t.Error("merged a bad copy")
			}
			if b, _ := os.ReadFile(orig); string(b) != `{"numStartups": 1}` {
				t.Errorf("original changed: %s", b)
			}
			if _, err := os.Stat(g.dir); err == nil {
				t.Error("per-run dir left behind")
			}
		})
	}
}

func TestReadRulePaths(t *testing.T) {
	root, home := t.TempDir(), "/home/u"
	writeTest(t, filepath.Join(root, "keys", "a.pem"), "x")
	writeTest(t, filepath.Join(root, "keys", "b.txt"), "x")
	got := readRulePaths([]string{"~/.ssh/", "~/.aws/**", "/etc/shadow", "keys/*.pem", "secrets/prod/",
		"/**/.env*", ".env", "/proc/**/environ", "~", "~/a/../b", `C:\x`}, root, home)
	want := []string{"/home/u/.ssh", "/home/u/.aws", "/etc/shadow", filepath.Join(root, "keys", "a.pem"),
		filepath.Join(root, "secrets", "prod")}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("readRulePaths =\n%v\nwant\n%v", got, want)
	}
}

func writeTest(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
