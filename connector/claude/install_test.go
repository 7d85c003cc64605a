package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const testExe = installtest.Exe

func golden(t *testing.T, name string, got []byte) { installtest.Golden(t, *update, name, got) }

func project(t *testing.T, settings string) (install.Env, string) {
	return installtest.File(t, SettingsFile, settings, settings != "")
}

func TestInstallRoundTrip(t *testing.T) {
	tests := []struct{ name, settings string }{
		{"user-settings", `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm test)"]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "./lint.sh"}]
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
    },
    "env": {"A": "1"}
}
`},
		{"compact", `{"model":"opus","hooks":{"PostToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"fmt"}]}]}}`},
		{"empty-object", "{}\n"},
		{"empty-hooks", "{\n  \"hooks\": {},\n  \"x\": [ ]\n}\n"},
		{"tabs", "{\n\t\"model\": \"opus\"\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.settings)
			ch, err := Integration{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := os.ReadFile(path)
			golden(t, tc.name+".json", merged)
			checkInstalled(t, merged)
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode changed to %v", fi.Mode().Perm())
			}
			again, err := Integration{}.Install(env, ch)
			if err != nil || !bytes.Equal(again, ch) {
				t.Fatalf("second install changed the record: %v\n%s\n%s", err, ch, again)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, merged) {
				t.Fatal("second install changed the file")
			}
			if err := (Integration{}).Uninstall(env, ch); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.settings {
				t.Errorf("round trip differs:\n--- got ---\n%s\n--- want ---\n%s", b, tc.settings)
			}
		})
	}
}

// checkInstalled asserts the merged file is JSON with one sandbox group
// per event, each running the hook with a timeout.
func checkInstalled(t *testing.T, data []byte) {
	t.Helper()
	var s struct {
		Hooks map[string][]group `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("merged file is not JSON: %v\n%s", err, data)
	}
	for _, ev := range []string{toolhook.PreToolUse, toolhook.PostToolUse, toolhook.SessionStart} {
		n := 0
		for _, g := range s.Hooks[ev] {
			for _, h := range g.Hooks {
				if h.Command == testExe+" hook claude" {
					n++
					if h.Timeout <= 0 || h.Type != "command" {
						t.Errorf("%s: bad entry %+v", ev, h)
					}
					if ev == toolhook.PreToolUse && (g.Matcher != Matcher || h.OnFailure != "block" || h.Timeout <= 600) {
						t.Errorf("PreToolUse group %+v", g)
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s has %d sandbox hooks, want 1", ev, n)
		}
	}
}

func TestInstallCreatesAndRemovesTheFile(t *testing.T) {
	env, path := project(t, "")
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	golden(t, "created.json", data)
	if err := (Integration{}).Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf(".claude/ left behind: %v", err)
	}
}

func TestUninstallKeepsWhatTheUserAddedLater(t *testing.T) {
	env, path := project(t, "")
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var v map[string]any
	json.Unmarshal(data, &v)
	hooks := v["hooks"].(map[string]any)
	hooks[toolhook.PreToolUse] = append(hooks[toolhook.PreToolUse].([]any), map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "mine"}}})
	v["model"] = "opus"
	data, _ = json.MarshalIndent(v, "", "  ")
	os.WriteFile(path, data, 0o644)
	if err := (Integration{}).Uninstall(env, ch); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), "hook claude") || !strings.Contains(string(data), `"mine"`) || !strings.Contains(string(data), "opus") {
		t.Errorf("after uninstall:\n%s", data)
	}
}

func TestReinstallFromAMovedBinary(t *testing.T) {
	env, path := project(t, `{"model": "x"}`)
	ch, err := Integration{}.Install(env, nil)
	if err != nil {
		t.Fatal(err)
	}
	env.Exe = "/new place/sandbox"
	ch2, err := Integration{}.Install(env, ch)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), testExe) || strings.Count(string(data), `'/new place/sandbox' hook claude`) != 3 {
		t.Errorf("after reinstall:\n%s", data)
	}
	if err := (Integration{}).Uninstall(env, ch2); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"model": "x"}` {
		t.Errorf("round trip: %s", data)
	}
}

func TestMalformedIsRefused(t *testing.T) {
	tests := []struct{ name, settings, where string }{
		{"syntax", "{\n  \"model\": \"x\",\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n", "settings.json:4:"},
		{"trailing comma", "{\n  \"a\": 1,\n}\n", "settings.json:3:"},
		{"top level array", "[]\n", "settings.json:1:"},
		{"hooks not object", "{\n  \"hooks\": []\n}\n", "settings.json:2:"},
		{"event not array", "{\n  \"hooks\": {\n    \"PreToolUse\": {}\n  }\n}\n", "settings.json:3:"},
		{"duplicate hooks", "{\n  \"hooks\": {},\n  \"hooks\": {}\n}\n", "settings.json:"},
		{"empty file", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.settings)
			if tc.settings == "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, nil, 0o644)
			}
			_, err := Integration{}.Install(env, nil)
			if !errors.Is(err, jsonedit.ErrMalformed) || !strings.Contains(err.Error(), tc.where) {
				t.Fatalf("err = %v, want jsonedit.ErrMalformed at %q", err, tc.where)
			}
			if b, _ := os.ReadFile(path); string(b) != tc.settings {
				t.Error("file changed")
			}
		})
	}
}

func FuzzInstallRoundTrip(f *testing.F) {
	for _, s := range []string{"{}", `{"a":1}`, "{\n  \"hooks\": {\"Stop\": []}\n}", `{"hooks":{"PreToolUse":[{"hooks":[]}]}}`, "{ \"x\" : [ 1 , 2 ] }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, settings string) {
		var v map[string]any
		if json.Unmarshal([]byte(settings), &v) != nil {
			return
		}
		env, path := project(t, settings)
		ch, err := Integration{}.Install(env, nil)
		if err != nil {
			if !errors.Is(err, jsonedit.ErrMalformed) {
				t.Fatalf("install: %v", err)
			}
			return
		}
		data, _ := os.ReadFile(path)
		if !json.Valid(data) {
			t.Fatalf("merged is not JSON:\n%s", data)
		}
		if err := (Integration{}).Uninstall(env, ch); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != settings {
			t.Fatalf("round trip:\n%q\n%q", b, settings)
		}
	})
}
