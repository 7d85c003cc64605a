package windsurf

import (
	"encoding/json"
	"flag"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/adapter/adaptertest"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestInstall runs the shared install suite on .windsurf/hooks.json.
func TestInstall(t *testing.T) {
	adaptertest.RunInstallTests(t, func() adaptertest.Integration {
		return adaptertest.Integration{
			Install: Integration{}, Files: []string{HooksFile}, Update: *update,
			Cases: []adaptertest.Case{
				{Name: "absent"},
				{Name: "user", Files: map[string]string{HooksFile: "{\n  \"hooks\": {\n    \"pre_run_command\": [\n      {\"command\": \"python3 check.py\", \"show_output\": true}\n    ],\n    \"post_write_code\": [{\"command\": \"./fmt.sh\"}]\n  }\n}\n"}},
				{Name: "compact", Files: map[string]string{HooksFile: `{"hooks":{}}`}},
			},
			Check: func(t *testing.T, env install.Env, files map[string][]byte) {
				var cfg struct{ Hooks map[string][]entry }
				if err := json.Unmarshal(files[HooksFile], &cfg); err != nil {
					t.Fatal(err)
				}
				for _, ev := range []string{PreRunCommand, PreWriteCode, PreReadCode, PreMCPToolUse} {
					if es := cfg.Hooks[ev]; len(es) == 0 || es[0].Command != adaptertest.Command(env.Exe, Name) || !es[0].ShowOutput {
						t.Errorf("%s: sandbox's hook is not first: %+v", ev, es)
					}
				}
			},
			Refusals: []adaptertest.Refusal{
				{Name: "event not array", Files: map[string]string{HooksFile: `{"hooks": {"pre_run_command": {}}}`}, Err: jsonedit.ErrMalformed},
			},
		}
	})
}
