package claude

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/adapter/toolhook"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func project(t *testing.T, settings string) (install.Env, string) {
	return installtest.File(t, SettingsFile, settings, settings != "")
}

// TestInstall runs the shared install suite on .claude/settings.json.
func TestInstall(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		var cases []adaptertest.Case
		for _, c := range []struct{ name, settings string }{
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
		} {
			cases = append(cases, adaptertest.Case{Name: c.name, Files: map[string]string{SettingsFile: c.settings}})
		}
		cases = append(cases, adaptertest.Case{Name: "created"})
		return adaptertest.Integration{
			Install: Integration{}, Files: []string{SettingsFile}, Cases: cases, Update: *update,
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				checkInstalled(t, files[SettingsFile], adaptertest.Command(env.Exe, Name))
			},
			Refusals: []adaptertest.Refusal{
				{Name: "syntax", Files: map[string]string{SettingsFile: "{\n  \"model\": \"x\",\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:4:"},
				{Name: "trailing comma", Files: map[string]string{SettingsFile: "{\n  \"a\": 1,\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:3:"},
				{Name: "top level array", Files: map[string]string{SettingsFile: "[]\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:1:"},
				{Name: "hooks not object", Files: map[string]string{SettingsFile: "{\n  \"hooks\": []\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:2:"},
				{Name: "event not array", Files: map[string]string{SettingsFile: "{\n  \"hooks\": {\n    \"PreToolUse\": {}\n  }\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:3:"},
				{Name: "duplicate hooks", Files: map[string]string{SettingsFile: "{\n  \"hooks\": {},\n  \"hooks\": {}\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:"},
				{Name: "empty file", Files: map[string]string{SettingsFile: ""}, Err: jsonedit.ErrMalformed},
			},
		}
	})
}

// checkInstalled asserts the merged file is JSON with one sandbox group
// per event, each running the hook with a timeout.
func checkInstalled(t *testing.T, data []byte, cmd string) {
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
				if h.Command == cmd {
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
