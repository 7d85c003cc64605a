//go:build linux

package launcher

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const httpSettings = `{
  "permissions": {"allow": ["Bash(ls:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:23022/hook/claude", "timeout": 900, "onFailure": "block"}]},
      {"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:9999/mine"}]}
    ],
    "SessionStart": [{"hooks": [{"type": "command", "command": "'/opt/sb/sandbox' hookd --ensure", "timeout": 30}]}]
  }
}`

// TestHookView: the hook server's hooks become `sandbox hook claude`
// command hooks in the jail's view, with their timeouts and failure
// mode; the user's own hooks and settings stay as they are.
func TestHookView(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	mustWrite(t, filepath.Join(root, ".claude", "settings.json"), httpSettings)
	sub, dir, ok, err := hookView(root, state)
	if err != nil || !ok {
		t.Fatalf("hookView: ok %v, err %v", ok, err)
	}
	if sub.Path != filepath.Join(root, ".claude", "settings.json") || !strings.HasPrefix(sub.Source, dir) || !strings.HasPrefix(dir, state) {
		t.Errorf("substitute %+v in %s", sub, dir)
	}
	b, err := os.ReadFile(sub.Source)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Permissions map[string]any
		Hooks       map[string][]struct {
			Hooks []map[string]any
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	pre := doc.Hooks["PreToolUse"][0].Hooks[0]
	if pre["type"] != "command" || pre["command"] != "'/opt/sb/sandbox' hook claude" || pre["url"] != nil ||
		pre["onFailure"] != "block" || pre["timeout"] != float64(900) {
		t.Errorf("PreToolUse in the view: %v", pre)
	}
	if mine := doc.Hooks["PreToolUse"][1].Hooks[0]; mine["type"] != "http" || mine["url"] != "http://127.0.0.1:9999/mine" {
		t.Errorf("the user's own hook changed: %v", mine)
	}
	if ss := doc.Hooks["SessionStart"][0].Hooks[0]; ss["command"] != "'/opt/sb/sandbox' hook claude" {
		t.Errorf("SessionStart in the view: %v", ss)
	}
	if doc.Permissions["allow"] == nil {
		t.Errorf("the rest of the settings was lost: %s", b)
	}
}

// TestHookViewNothingToDo: command hooks, no settings, a file that is not
// JSON or a link: no view.
func TestHookViewNothingToDo(t *testing.T) {
	for name, content := range map[string]string{
		"command hooks": `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sandbox hook claude"}]}]}}`,
		"not JSON":      `{"hooks": /hook/claude`,
		"no server":     `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/hook/claude"}]}]}}`,
	} {
		root := t.TempDir()
		mustWrite(t, filepath.Join(root, ".claude", "settings.json"), content)
		if _, _, ok, err := hookView(root, t.TempDir()); ok || err != nil {
			t.Errorf("%s: ok %v, err %v", name, ok, err)
		}
	}
	if _, _, ok, err := hookView(t.TempDir(), t.TempDir()); ok || err != nil {
		t.Errorf("no settings: ok %v, err %v", ok, err)
	}
}
