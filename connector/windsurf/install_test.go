package windsurf

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/install/installtest"
	"github.com/sandbox-dev/sandbox/connector/jsonedit"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const testExe = installtest.Exe

func golden(t *testing.T, name string, got []byte) { installtest.Golden(t, *update, name, got) }

func project(t *testing.T, content string, exists bool) (install.Env, string) {
	return installtest.File(t, HooksFile, content, exists)
}

func TestInstallRoundTrip(t *testing.T) {
	tests := []struct {
		name, content string
		exists        bool
	}{
		{"absent", "", false},
		{"user", "{\n  \"hooks\": {\n    \"pre_run_command\": [\n      {\"command\": \"python3 check.py\", \"show_output\": true}\n    ],\n    \"post_write_code\": [{\"command\": \"./fmt.sh\"}]\n  }\n}\n", true},
		{"compact", `{"hooks":{}}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, path := project(t, tc.content, tc.exists)
			ch, err := Integration{}.Install(env, nil)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := os.ReadFile(path)
			golden(t, tc.name+".json", merged)
			var cfg struct{ Hooks map[string][]entry }
			if err := json.Unmarshal(merged, &cfg); err != nil {
				t.Fatal(err)
			}
			for _, ev := range []string{PreRunCommand, PreWriteCode, PreReadCode, PreMCPToolUse} {
				if es := cfg.Hooks[ev]; len(es) == 0 || es[0].Command != testExe+" hook windsurf" {
					t.Errorf("%s: sandbox's hook is not first: %+v", ev, es)
				}
			}
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
				return
			}
			if string(b) != tc.content {
				t.Errorf("round trip:\n%q\n%q", b, tc.content)
			}
		})
	}
}

func TestInstallRefuses(t *testing.T) {
	env, path := project(t, `{"hooks": {"pre_run_command": {}}}`, true)
	if _, err := (Integration{}).Install(env, nil); !errors.Is(err, jsonedit.ErrMalformed) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"hooks": {"pre_run_command": {}}}` {
		t.Error("file changed")
	}
}
