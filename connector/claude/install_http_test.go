package claude

import (
	"encoding/json"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

// TestInstallHTTP runs the shared install suite on init --claude-http's
// settings (the port fixed, so that the golden files hold).
func TestInstallHTTP(t *testing.T) {
	const url = "http://127.0.0.1:23456/hook/claude"
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		cases := []adaptertest.Case{
			{Name: "user-settings", Files: map[string]string{SettingsFile: `{
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:9999/mine"}]}
        ]
    }
}
`}},
			{Name: "empty-object", Files: map[string]string{SettingsFile: "{}\n"}},
			{Name: "created"},
		}
		return adaptertest.Integration{
			Install: HTTPIntegration{Port: func(string) int { return 23456 }}, Files: []string{SettingsFile}, Cases: cases, Update: *update,
			Golden: func(c, _ string) string { return "http-" + c + ".json" },
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				var s struct {
					Hooks map[string][]struct {
						Hooks []map[string]any `json:"hooks"`
					} `json:"hooks"`
				}
				if err := json.Unmarshal(files[SettingsFile], &s); err != nil {
					t.Fatal(err)
				}
				last := func(ev string) map[string]any {
					gs := s.Hooks[ev]
					if len(gs) == 0 || len(gs[len(gs)-1].Hooks) != 1 {
						t.Fatalf("%s: %+v", ev, gs)
					}
					return gs[len(gs)-1].Hooks[0]
				}
				if h := last("PreToolUse"); h["type"] != "http" || h["url"] != url || h["onFailure"] != "block" {
					t.Errorf("PreToolUse: %v", h)
				}
				if h := last("PostToolUse"); h["type"] != "http" || h["url"] != url {
					t.Errorf("PostToolUse: %v", h)
				}
				if h := last("SessionStart"); h["type"] != "command" || h["command"] != ensureCommand(env.Exe) {
					t.Errorf("SessionStart: %v", h)
				}
			},
			Refusals: []adaptertest.Refusal{
				{Name: "syntax", Files: map[string]string{SettingsFile: "{\n  \"hooks\": {\n    \"PreToolUse\": [,]\n  }\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:3:"},
				{Name: "hooks not object", Files: map[string]string{SettingsFile: "{\n  \"hooks\": []\n}\n"}, Err: jsonedit.ErrMalformed, Where: "settings.json:2:"},
			},
		}
	})
}
