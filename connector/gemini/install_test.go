package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func project(t *testing.T, settings string, exists bool) (install.Env, string) {
	return installtest.File(t, SettingsFile, settings, exists)
}

const userSettings = `{
  "theme": "GitHub",
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "write_file",
        "hooks": [{"name": "lint", "type": "command", "command": "./lint.sh"}]
      }
    ]
  },
  "mcpServers": {
    "db": {"command": "db-mcp", "trust": true}
  }
}
`

// TestInstall runs the shared install suite on .gemini/settings.json.
func TestInstall(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: Integration{}, Files: []string{SettingsFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "absent"},
				{Name: "empty", Files: map[string]string{SettingsFile: "{}\n"}},
				{Name: "user", Files: map[string]string{SettingsFile: userSettings}},
				{Name: "tabs", Files: map[string]string{SettingsFile: "{\n\t\"general\": {\"vimMode\": true}\n}\n"}},
			},
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				check(t, files[SettingsFile], env)
			},
			Refusals: []adaptertest.Refusal{
				{Name: "comments", Files: map[string]string{SettingsFile: "{\n  // mine\n  \"theme\": \"x\"\n}\n"}, Err: jsonedit.ErrMalformed},
				{Name: "hooks array", Files: map[string]string{SettingsFile: `{"hooks": []}`}, Err: jsonedit.ErrMalformed},
				{Name: "server taken", Files: map[string]string{SettingsFile: `{"mcpServers": {"sandbox": {"command": "npx", "args": ["other"]}}}`}, Err: jsonedit.ErrConflict},
			},
		}
	})
}

func check(t *testing.T, data []byte, env install.Env) {
	t.Helper()
	var cfg struct {
		Hooks      map[string][]group
		MCPServers map[string]mcpserver.Entry
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{BeforeTool, AfterTool, SessionStart} {
		n := 0
		for _, g := range cfg.Hooks[ev] {
			for _, h := range g.Hooks {
				if h.Command == adaptertest.Command(env.Exe, Name) {
					n++
					if ev == BeforeTool && (g.Matcher != Matcher || h.Timeout <= 600_000 || h.Type != "command") {
						t.Errorf("BeforeTool group %+v", g)
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d sandbox hooks", ev, n)
		}
	}
	s := cfg.MCPServers[mcpserver.ServerName]
	if s.Command != env.Exe || strings.Join(s.Args, " ") != "mcp "+env.Folder.Root || s.Timeout < mcpserver.MaxWaitSeconds*1000 {
		t.Errorf("server %+v", s)
	}
}

func TestUninstallLeavesTheUsersHooksInASharedGroup(t *testing.T) {
	env, path := project(t, "{}\n", true)
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var v map[string]any
	json.Unmarshal(b, &v)
	g := v["hooks"].(map[string]any)[BeforeTool].([]any)[0].(map[string]any)
	g["hooks"] = append(g["hooks"].([]any), map[string]any{"type": "command", "command": "./mine.sh"})
	b, _ = json.MarshalIndent(v, "", "  ")
	os.WriteFile(path, b, 0o644)
	if err := (Integration{}).Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if bytes.Contains(b, []byte("hook gemini")) || bytes.Contains(b, []byte(`"sandbox"`)) || !bytes.Contains(b, []byte("./mine.sh")) {
		t.Errorf("after uninstall:\n%s", b)
	}
}
