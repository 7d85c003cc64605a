package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
	"github.com/sandbox-dev/sandbox/connector/mcpserver"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const testExe = installtest.Exe

func golden(t *testing.T, name string, got []byte) { installtest.Golden(t, *update, name, got) }

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

func TestInstallRoundTrip(t *testing.T) {
	tests := []struct {
		name, settings string
		exists         bool
	}{
		{"absent", "", false},
		{"empty", "{}\n", true},
		{"user", userSettings, true},
		{"tabs", "{\n\t\"general\": {\"vimMode\": true}\n}\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.settings, tc.exists)
			ch, err := Integration{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := os.ReadFile(path)
			golden(t, tc.name+".json", bytes.ReplaceAll(merged, []byte(env.Folder.Root), []byte("/work/project")))
			check(t, merged, env.Folder.Root)
			again, err := Integration{}.Install(env, ch)
			if err != nil || !bytes.Equal(again, ch) {
				t.Fatalf("second install: %v", err)
			}
			if err := (Integration{}).Uninstall(env, ch); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if !tc.exists {
				if !os.IsNotExist(err) {
					t.Errorf("created file left behind: %v", err)
				}
				if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
					t.Error(".gemini/ left behind")
				}
				return
			}
			if string(b) != tc.settings {
				t.Errorf("round trip:\n%q\n%q", b, tc.settings)
			}
		})
	}
}

func check(t *testing.T, data []byte, root string) {
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
				if h.Command == testExe+" hook gemini" {
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
	if s.Command != testExe || strings.Join(s.Args, " ") != "mcp "+root || s.Timeout < mcpserver.MaxWaitSeconds*1000 {
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

func TestInstallRefuses(t *testing.T) {
	tests := []struct {
		name, settings string
		want           error
	}{
		{"comments", "{\n  // mine\n  \"theme\": \"x\"\n}\n", jsonedit.ErrMalformed},
		{"hooks array", `{"hooks": []}`, jsonedit.ErrMalformed},
		{"server taken", `{"mcpServers": {"sandbox": {"command": "npx", "args": ["other"]}}}`, jsonedit.ErrConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.settings, true)
			if _, err := (Integration{}).Install(env, nil); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.settings {
				t.Error("file changed")
			}
		})
	}
}
